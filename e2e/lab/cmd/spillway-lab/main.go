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

// Command spillway-lab starts and stops the local lab clusters:
//
//	spillway-lab up --clusters "rome milan:nodes=3,nvidia.com/gpu=1"
//	spillway-lab status
//	spillway-lab stop|start|restart CLUSTER COMPONENT
//	spillway-lab partition|heal CLUSTER   (cut CLUSTER off from its peers, or reconnect it)
//	spillway-lab down
//	spillway-lab serve-git --root DIR --addr 127.0.0.1:PORT   (the lab's fleet git server)
//	spillway-lab peer-link --listen A --upstream B --control C  (run by the lab, one per cluster)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/e2e/lab"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "spillway-lab:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: spillway-lab {up|down|status|stop|start|restart|partition|heal} [flags]")
	}
	fs := flag.NewFlagSet("spillway-lab "+args[0], flag.ContinueOnError)
	dir := fs.String("dir", ".lab", "state directory")
	clusters := fs.String("clusters", os.Getenv("CLUSTERS"), `clusters to start, e.g. "rome milan:nodes=3,cpu=16,nvidia.com/gpu=1,label.topology.liqo.io/region=south"`)
	portBase := fs.Int("port-base", lab.DefaultPortBase, "first loopback port of the lab")
	overlap := fs.Bool("overlapping-cidrs", false, "give every cluster the same pod and service CIDRs")
	qps := fs.Int("qps", lab.DefaultClientQPS.QPS, "client QPS of controller-manager and scheduler (burst is twice)")
	timeout := fs.Duration("timeout", 10*time.Minute, "how long up and start/restart wait for readiness")
	gitRoot := fs.String("root", "", "serve-git: directory of bare repositories")
	addr := fs.String("addr", "127.0.0.1:0", "serve-git: loopback address to listen on")
	listen := fs.String("listen", "", "peer-link: loopback address the cluster's peers dial")
	upstream := fs.String("upstream", "", "peer-link: the API server's loopback address")
	control := fs.String("control", "", "peer-link: loopback address of the partition/heal endpoint")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if args[0] == "serve-git" {
		return serveGit(*gitRoot, *addr)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if args[0] == "peer-link" {
		return lab.RunPeerLink(ctx, *listen, *upstream, *control)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, *timeout)
	defer cancelTimeout()
	opts := lab.Options{Dir: *dir, PortBase: *portBase, OverlappingCIDRs: *overlap,
		QPS: lab.ClientQPS{QPS: *qps, Burst: 2 * *qps}, Out: os.Stdout}

	switch args[0] {
	case "up":
		specs, err := lab.ParseClusterSpecs(*clusters)
		if err != nil {
			return err
		}
		start := time.Now()
		l, err := lab.Up(ctx, opts, specs)
		if err != nil {
			return err
		}
		defer l.Close()
		fmt.Printf("lab: %s up in %s; try: kubectl --kubeconfig %s/%s/kubeconfig get nodes\n",
			strings.Join(lab.Names(specs), ", "), time.Since(start).Round(100*time.Millisecond), *dir, specs[0].Name)
		return nil
	case "down":
		if err := lab.DownDir(*dir); err != nil {
			return err
		}
		fmt.Println("lab: down; every lab process stopped and", *dir, "cleared")
		return nil
	case "status":
		return status(ctx, opts)
	case "stop", "start", "restart":
		return component(ctx, opts, args[0], fs.Args())
	case "partition", "heal":
		return link(ctx, opts, args[0], fs.Args())
	}
	return fmt.Errorf("unknown verb %q: use up, down, status, stop, start, restart, partition, heal or serve-git", args[0])
}

// serveGit runs the lab's git server in the foreground; the lab starts it as
// one of its processes.
func serveGit(root, addr string) error {
	if root == "" {
		return errors.New("serve-git needs --root, the directory holding the bare repositories")
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		return fmt.Errorf("serve-git --addr %q: the lab listens on loopback only (127.0.0.1:PORT)", addr)
	}
	h, err := lab.GitHandler(root)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("serve-git: serving %s on http://%s\n", root, addr)
	return srv.ListenAndServe()
}

func status(ctx context.Context, opts lab.Options) error {
	l, err := lab.Attach(opts)
	if err != nil {
		return err
	}
	defer l.Close()
	for _, c := range l.Clusters() {
		health := "ready"
		if err := c.CheckReadyz(ctx); err != nil {
			health = "not ready: " + err.Error()
		}
		fmt.Printf("%s\t%s\t%s\n", c.Name, c.Server(), health)
		if s, err := c.LinkStatus(ctx); err == nil {
			link := "carrying traffic"
			if s.Partitioned {
				link = "PARTITIONED since " + s.Since.Format(time.RFC3339)
			}
			fmt.Printf("  peers reach it at %s: %s (%d connections, %d held)\n", c.PeerServer(), link, s.Connections, s.Held)
		}
		for _, comp := range lab.Components {
			state := "stopped"
			if c.Running(comp) {
				state = "running"
			}
			fmt.Printf("  %-24s %s\n", comp, state)
		}
		// The processes the demo and suites add: spillway-controller, Flux, External Secrets, the git server.
		for _, name := range c.ProcessNames() {
			if slices.Contains(lab.Components, name) {
				continue
			}
			state := "stopped"
			if c.ExtraRunning(name) {
				state = "running"
			}
			fmt.Printf("  %-24s %s (log %s)\n", name, state, c.LogPath(name))
		}
	}
	return nil
}

func component(ctx context.Context, opts lab.Options, verb string, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: spillway-lab %s CLUSTER COMPONENT (components: %s)", verb, strings.Join(lab.Components, ", "))
	}
	l, err := lab.Attach(opts)
	if err != nil {
		return err
	}
	defer l.Close()
	c, err := l.Cluster(args[0])
	if err != nil {
		return err
	}
	switch verb {
	case "stop":
		return c.Stop(args[1])
	case "start":
		return c.Start(ctx, args[1])
	}
	return c.Restart(ctx, args[1])
}

// link partitions or heals one cluster's peer link.
func link(ctx context.Context, opts lab.Options, verb string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: spillway-lab %s CLUSTER", verb)
	}
	l, err := lab.Attach(opts)
	if err != nil {
		return err
	}
	defer l.Close()
	c, err := l.Cluster(args[0])
	if err != nil {
		return err
	}
	if verb == "partition" {
		if err := c.Partition(ctx); err != nil {
			return err
		}
		fmt.Printf("lab: %s is cut off from its peers: %s carries nothing (connections held, not refused) until `spillway-lab heal %s`\n", c.Name, c.PeerServer(), c.Name)
		return nil
	}
	if err := c.Heal(ctx); err != nil {
		return err
	}
	fmt.Printf("lab: %s reachable again at %s\n", c.Name, c.PeerServer())
	return nil
}
