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

package framework

import (
	"context"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// GitOps is a lab run the way the fleet is meant to be run: Flux applies
// every Spillway object from the lab's git server and External Secrets
// carries every credential through the secret store.
type GitOps struct {
	Tools GitOpsTools
	Repo  *FleetRepo
	Store *SecretStore
}

// StartGitOps is the fleet's day one on a running lab: the secret store and
// the git server on the first of clusters, then on every cluster Flux and
// External Secrets, the store's bootstrap credentials, Flux's bootstrap and,
// once Flux has applied the install layer, the manager process. It returns
// when every manager runs; the Kustomizations may still be converging.
func StartGitOps(ctx context.Context, root string, l *lab.Lab, clusters []*lab.Cluster, progress io.Writer, managerArgs func(*lab.Cluster) []string) (*GitOps, error) {
	if len(clusters) == 0 {
		return nil, fmt.Errorf("StartGitOps needs at least one cluster")
	}
	tools, err := ResolveGitOpsTools(progress)
	if err != nil {
		return nil, err
	}
	if _, err := Binaries(); err != nil {
		return nil, err
	}
	g := &GitOps{Tools: tools}
	host := clusters[0]
	if g.Store, err = StartSecretStore(ctx, host); err != nil {
		return nil, err
	}
	if g.Repo, err = StartFleetRepo(ctx, root, l, host); err != nil {
		return nil, err
	}
	eg, ectx := errgroup.WithContext(ctx)
	for _, c := range clusters {
		eg.Go(func() error {
			if err := InstallFlux(ectx, c, tools); err != nil {
				return err
			}
			if err := InstallExternalSecrets(ectx, c, tools); err != nil {
				return err
			}
			if err := g.Store.Bootstrap(ectx, c); err != nil {
				return err
			}
			if err := BootstrapFlux(ectx, c, g.Repo); err != nil {
				return err
			}
			var extra []string
			if managerArgs != nil {
				extra = managerArgs(c)
			}
			return StartManagerWhenInstalled(ectx, c, extra...)
		})
	}
	return g, eg.Wait()
}
