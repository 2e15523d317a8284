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
