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
	"github.com/spf13/cobra"

	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/policies"
)

type moveOptions struct {
	target
	namespace string
	node      string
}

func newMoveCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "move",
		Short: "Write the manifest that moves a claim's data",
	}
	o := &moveOptions{}
	volume := &cobra.Command{
		Use:   "volume CLAIM",
		Short: "Write a VolumeMove that moves the data of CLAIM (class liqo) to NODE",
		Long: `Writes <fleet>/<cluster>/config/volumemove-NAMESPACE-CLAIM.yaml, a VolumeMove
that asks the cluster's manager to move the data of the claim CLAIM (of
storage class liqo) to --node: a node of the cluster or a peer's virtual node.

Once it is applied, the manager copies the data with two rsync Jobs (one
where the data is, one at the target, over the network fabric) only while no
pod mounts the claim, verifies the copy, deletes the source and binds the
claim to the copy: the next pod of the claim is scheduled on --node. Until
the claim is detached the VolumeMove is Ready=False with reason ClaimInUse.`,
		Example: `  spillway move volume data-db-0 --namespace shop --node liqo-milan --cluster rome`,
		Args:    exactArgs("CLAIM"),
		RunE:    func(c *cobra.Command, args []string) error { return o.run(c, args[0]) },
	}
	volume.Flags().StringVarP(&o.namespace, "namespace", "n", "", "the claim's namespace")
	volume.Flags().StringVar(&o.node, "node", "", "the node the data moves to, e.g. liqo-milan")
	o.bind(volume, "the cluster whose claim moves, whose config folder is written", true)
	c.AddCommand(volume)
	return c
}

func (o *moveOptions) run(c *cobra.Command, claim string) error {
	if o.namespace == "" || o.node == "" {
		return usageErrorf("--namespace and --node are required: the claim's namespace and the node its data moves to (kubectl get nodes)")
	}
	if err := validateNamespaceName(o.namespace); err != nil {
		return usageErrorf("--namespace: %v", err)
	}
	if err := policies.ValidateVolumeMove(claim, "node"); err != nil {
		return usageErrorf("CLAIM: %v", err)
	}
	if err := policies.ValidateVolumeMove("claim", o.node); err != nil {
		return usageErrorf("--node: %v", err)
	}
	if err := o.validate(false); err != nil {
		return err
	}
	return o.emit(c, manifests.VolumeMove{Namespace: o.namespace, Claim: claim, Node: o.node}.File())
}
