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

package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// PeerServer is the URL the cluster's peers reach its API server at: its
// peer link, which Partition cuts. The cluster's own components, the lab's
// clients and the suites' checks use Server and are never cut off.
func (c *Cluster) PeerServer() string {
	return "https://127.0.0.1:" + strconv.Itoa(c.state.Ports.PeerLink)
}

// Partition cuts the cluster off from its peers: its peer link stops
// carrying traffic (held, never refused) until Heal. Every process keeps
// running, and the cluster keeps answering on Server.
func (c *Cluster) Partition(ctx context.Context) error {
	_, err := c.linkCall(ctx, http.MethodPost, "partition")
	return err
}

// Heal lets the cluster's peer link carry traffic again.
func (c *Cluster) Heal(ctx context.Context) error {
	_, err := c.linkCall(ctx, http.MethodPost, "heal")
	return err
}

// LinkStatus asks the cluster's peer link whether it is partitioned.
func (c *Cluster) LinkStatus(ctx context.Context) (LinkStatus, error) {
	return c.linkCall(ctx, http.MethodGet, "state")
}

func (c *Cluster) linkCall(ctx context.Context, method, verb string) (LinkStatus, error) {
	var s LinkStatus
	url := "http://127.0.0.1:" + strconv.Itoa(c.state.Ports.PeerLinkControl) + "/" + verb
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return s, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return s, fmt.Errorf("cluster %q: the peer link's control endpoint %s: %w (is the %s component running? `spillway-lab status`)", c.Name, url, err, PeerLink)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("cluster %q: %s %s answered %s", c.Name, method, url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return s, fmt.Errorf("cluster %q: reading the peer link's state: %w", c.Name, err)
	}
	return s, nil
}
