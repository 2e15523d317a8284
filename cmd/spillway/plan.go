/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"fmt"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/cli/fleet"
	"github.com/spillway-dev/spillway/cli/plan"
)

type planOptions struct {
	base, head, fleet, output string
}

func newPlanCommand(g *globalOptions) *cobra.Command {
	o := &planOptions{}
	c := &cobra.Command{
		Use:   "plan",
		Short: "Show what a change to the fleet repository will do once Flux applies it",
		Long: `Renders every <fleet>/<cluster>/config folder at --base and at --head and
reports, per cluster, the namespaces newly offloaded, withdrawn or moved
between peers (with their remote names), pod strategy changes, shrinking
offers, and the changes admission will reject.

A ref is a directory (a fleet directory) or a git commit-ish of the repository
holding --fleet; a commit is read with git archive, leaving the work tree
alone. --head defaults to --fleet as it is on disk.

With --kubeconfig or --context, the running pods of the cluster they point at
are checked against changed placements.

Exit code: 0 when nothing is rejected, 1 when a change would be rejected,
2 when the plan cannot be made (bad flags or refs).`,
		Example: `  spillway plan --base origin/main --head HEAD
  spillway plan --base main --output json
  spillway plan --base ./before/clusters --head ./after/clusters`,
		Args: exactArgs(),
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c, g) },
	}
	c.Flags().StringVar(&o.base, "base", "HEAD", "the fleet before the change: a git ref or a directory")
	c.Flags().StringVar(&o.head, "head", "", "the fleet after the change: a git ref or a directory (default: --fleet on disk)")
	c.Flags().StringVar(&o.fleet, "fleet", defaultFleet, "the fleet directory, holding one folder per cluster")
	c.Flags().StringVarP(&o.output, "output", "o", "text", "text for people, json for bots")
	return c
}

func (o *planOptions) run(c *cobra.Command, g *globalOptions) error {
	if o.output != "text" && o.output != "json" {
		return usageErrorf("--output %q is not text or json: use text for people, json for bots", o.output)
	}
	if o.head == "" {
		o.head = o.fleet
	}
	base, err := plan.Resolve(o.base, o.fleet)
	if err != nil {
		return usageErrorf("--base: %v", err)
	}
	defer base.Cleanup()
	head, err := plan.Resolve(o.head, o.fleet)
	if err != nil {
		return usageErrorf("--head: %v", err)
	}
	defer head.Cleanup()
	bs, err := plan.Load(base.Dir)
	if err != nil {
		return usageErrorf("--base %s: %v", o.base, err)
	}
	hs, err := plan.Load(head.Dir)
	if err != nil {
		return usageErrorf("--head %s: %v", o.head, err)
	}
	var opts plan.Options
	if c.Flags().Changed("kubeconfig") || c.Flags().Changed("context") {
		live, err := liveCluster(c, g, hs)
		if err != nil {
			return failed(err)
		}
		opts.Live = live
	}
	p, err := plan.Compute(c.Context(), bs, hs, opts)
	if err != nil {
		return failed(err)
	}
	if o.output == "json" {
		err = p.WriteJSON(c.OutOrStdout())
	} else {
		err = p.WriteText(c.OutOrStdout())
	}
	if err != nil {
		return failed(err)
	}
	if p.Rejected {
		return &exitError{code: exitFailed}
	}
	return nil
}

// liveCluster finds which cluster of the fleet the kubeconfig points at: by
// the CLUSTER_ID of its identity ConfigMap, else by a context named like the
// cluster's folder.
func liveCluster(c *cobra.Command, g *globalOptions, head *plan.Snapshot) (*plan.Live, error) {
	cl, contextName, err := g.newClient()
	if err != nil {
		return nil, err
	}
	var cm corev1.ConfigMap
	key := client.ObjectKey{Namespace: fleet.IdentityNamespace, Name: fleet.IdentityConfigMapName}
	if err := cl.Get(c.Context(), key, &cm); err == nil {
		for name, cluster := range head.Clusters {
			if cluster.IdentityErr == nil && cluster.Identity.ClusterID == cm.Data[fleet.ClusterIDKey] {
				return &plan.Live{Cluster: name, Reader: cl}, nil
			}
		}
	}
	if _, ok := head.Clusters[contextName]; ok {
		return &plan.Live{Cluster: contextName, Reader: cl}, nil
	}
	fmt.Fprintf(c.ErrOrStderr(), "note: context %q is no cluster of the fleet (neither its %s nor its name matches): running pods are not checked\n",
		contextName, fleet.IdentityConfigMapName)
	return &plan.Live{Cluster: "context " + contextName}, nil
}
