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
	"errors"

	"github.com/spf13/cobra"

	"github.com/spillway-dev/spillway/cli/status"
)

func newStatusCommand(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "status",
		Short: "Show the peerings, virtual nodes and offloaded namespaces of a live cluster",
		Long: `Reads the cluster that --kubeconfig and --context point at and shows its
peerings (ForeignClusters), virtual nodes and offloaded namespaces, with the
reason for anything that is not Ready.`,
		Args: exactArgs(),
		RunE: func(c *cobra.Command, _ []string) error { return showStatus(c, g, "") },
	}
	c.AddCommand(&cobra.Command{
		Use:   "peer NAME",
		Short: "Show one peering: its ForeignCluster, virtual node and the namespaces offloaded to it",
		Args:  exactArgs("NAME"),
		RunE:  func(c *cobra.Command, args []string) error { return showStatus(c, g, args[0]) },
	})
	return c
}

func showStatus(c *cobra.Command, g *globalOptions, peer string) error {
	cl, _, err := g.newClient()
	if err != nil {
		return failed(err)
	}
	s, err := status.Collect(c.Context(), cl, peer)
	var notFound status.ErrPeerNotFound
	if errors.As(err, &notFound) {
		return failed(err)
	}
	if err != nil {
		return failed(err)
	}
	return s.WriteText(c.OutOrStdout())
}
