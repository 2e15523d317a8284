//go:build e2e || bench

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

package network_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
)

// remapped is where a pod of the other cluster is reached, given a remap CIDR
// of /16 and the pods' shared IP.
func remapped(cidr string) string {
	_, n, _ := net.ParseCIDR(cidr)
	ip := net.ParseIP(podIP).To4()
	return fmt.Sprintf("%d.%d.%d.%d", n.IP[0], n.IP[1], ip[2], ip[3])
}

type gatewayStatus struct {
	Phase               string `json:"phase"`
	Reason              string `json:"reason"`
	Implementation      string `json:"implementation"`
	PublicKey           string `json:"publicKey"`
	RemappedRemoteCIDR  string `json:"remappedRemoteCIDR"`
	LatencyMicroseconds int64  `json:"latencyMicroseconds"`
}

func get(ns, url string) (string, error) {
	resp, err := httpClientIn(ns).Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

func statusOf(ns, addr string) (gatewayStatus, error) {
	var s gatewayStatus
	body, err := get(ns, "http://"+addr+"/status")
	if err == nil {
		err = json.Unmarshal([]byte(body), &s)
	}
	return s, err
}

// metric returns the value of the sample whose name and labels are given as
// they appear in the text exposition, e.g. `liqo_peer_is_connected{remote_cluster_id="b"}`.
func metric(body, sample string) (float64, error) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0, fmt.Errorf("no sample %s", sample)
	}
	return strconv.ParseFloat(m[1], 64)
}

// phaseOf is a gateway's phase and reason in a line, or why it has none, for
// a failure message to say what the other end saw.
func phaseOf(ns, addr string) string {
	s, err := statusOf(ns, addr)
	if err != nil {
		return "no status: " + err.Error()
	}
	return s.Phase + " " + s.Reason
}
