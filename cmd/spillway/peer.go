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
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
)

type peerOptions struct {
	target
	clusterID            string
	clusterName          string
	credentialsSecret    string
	credentialsNamespace string
}

func newPeerCommand() *cobra.Command {
	o := &peerOptions{}
	c := &cobra.Command{
		Use:   "peer NAME",
		Short: "Write the ForeignCluster and ExternalSecret that make this cluster consume NAME",
		Long: `Writes, into the consumer's config folder, the ForeignCluster NAME (outgoing
peering on, incoming off) and the ExternalSecret that fetches the credentials
NAME issued to the consumer from the ClusterSecretStore fleet-secrets. NAME's
side is written by "spillway generate offer".

--cluster-id defaults to the CLUSTER_ID in <fleet>/NAME/install when NAME is
in the fleet.`,
		Example: `  spillway peer milan --cluster rome
  spillway peer milan --cluster rome --cluster-id 8b1d6f03-c2e5-4a97-9f48-d13b7e6a2c05 --credentials-secret milan-credentials`,
		Args: exactArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args[0]) },
	}
	c.Flags().StringVar(&o.clusterID, "cluster-id", "", "NAME's cluster ID (default: from the fleet)")
	c.Flags().StringVar(&o.clusterName, "cluster-name", "", "NAME's human-friendly name (default: from the fleet, else NAME)")
	c.Flags().StringVar(&o.credentialsSecret, "credentials-secret", "", "the Secret the ExternalSecret fills and the ForeignCluster reads (default: NAME-credentials)")
	c.Flags().StringVar(&o.credentialsNamespace, "credentials-namespace", discoveryv1alpha1.DefaultCredentialsNamespace, "the namespace of that Secret")
	o.bind(c, "the consumer, whose config folder is written", true)
	return c
}

func (o *peerOptions) run(c *cobra.Command, name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return usageErrorf("peer %q: %s: use the provider's lowercase name, e.g. milan", name, strings.Join(errs, "; "))
	}
	if o.credentialsSecret == "" {
		o.credentialsSecret = name + "-credentials"
	}
	if errs := validation.IsDNS1123Subdomain(o.credentialsSecret); len(errs) > 0 {
		return usageErrorf("--credentials-secret %q: %s: use a lowercase Secret name", o.credentialsSecret, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Label(o.credentialsNamespace); len(errs) > 0 {
		return usageErrorf("--credentials-namespace %q: %s: use a namespace name such as liqo", o.credentialsNamespace, strings.Join(errs, "; "))
	}
	if err := o.validate(true); err != nil {
		return err
	}
	if id, err := o.fleetDir().Identity(name); err == nil {
		if o.clusterID == "" {
			o.clusterID = id.ClusterID
		}
		if o.clusterName == "" {
			o.clusterName = id.ClusterName
		}
	}
	if o.clusterID == "" {
		return usageErrorf("--cluster-id is required: %s's CLUSTER_ID (no %s declares it)", name, o.fleetDir().InstallDir(name))
	}
	p := manifests.Peering{Consumer: o.cluster, Provider: name, ClusterID: o.clusterID, ClusterName: o.clusterName,
		CredentialsSecret: o.credentialsSecret, CredentialsNamespace: o.credentialsNamespace}
	return o.emit(c, p.Files()...)
}
