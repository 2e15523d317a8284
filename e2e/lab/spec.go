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
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ClusterSpec describes one lab cluster and its simulated nodes.
type ClusterSpec struct {
	Name string `json:"name"`
	// Nodes is how many kwok nodes the cluster starts with.
	Nodes int `json:"nodes"`
	// Capacity of every node: cpu, memory, pods and any extended resource (nvidia.com/gpu).
	Capacity map[string]string `json:"capacity"`
	// Labels added to every node.
	Labels map[string]string `json:"labels,omitempty"`
	// ExecContainers are the container names whose `kubectl exec` kwok
	// answers, by running the command on the lab's host (KwokExecRule); exec
	// into any other container is refused, as kwok refuses by default.
	ExecContainers []string `json:"execContainers,omitempty"`
}

// DefaultNodes and DefaultCapacity size a cluster the user did not size.
const DefaultNodes = 2

// DefaultCapacity is a mid-size worker.
func DefaultCapacity() map[string]string {
	return map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110"}
}

var clusterNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$`)

// ParseClusterSpec reads "name[:key=value,...]" as written on the command line:
// keys nodes, cpu, memory, pods, any resource name with a slash (nvidia.com/gpu),
// label.<key>=<value>, and exec=<container> (repeatable: kwok answers exec
// into containers of that name, KwokExecRule).
// Example: "milan:nodes=3,cpu=16,nvidia.com/gpu=2,label.topology.liqo.io/region=north,exec=shell".
func ParseClusterSpec(s string) (ClusterSpec, error) {
	name, opts, _ := strings.Cut(strings.TrimSpace(s), ":")
	spec := ClusterSpec{Name: name, Nodes: DefaultNodes, Capacity: DefaultCapacity(), Labels: map[string]string{}}
	if !clusterNameRE.MatchString(name) {
		return spec, fmt.Errorf("cluster name %q is invalid: use 1-32 lower-case letters, digits and '-', starting with a letter", name)
	}
	if opts == "" {
		return spec, nil
	}
	for _, kv := range strings.Split(opts, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return spec, fmt.Errorf("cluster %q: option %q is not key=value (example: %s:nodes=3,cpu=16)", name, kv, name)
		}
		switch {
		case k == "nodes":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 10000 {
				return spec, fmt.Errorf("cluster %q: nodes=%q must be an integer between 0 and 10000", name, v)
			}
			spec.Nodes = n
		case k == "exec":
			if errs := validation.IsDNS1123Label(v); len(errs) > 0 {
				return spec, fmt.Errorf("cluster %q: exec=%q is not a container name: %s", name, v, strings.Join(errs, "; "))
			}
			spec.ExecContainers = append(spec.ExecContainers, v)
		case strings.HasPrefix(k, "label."):
			spec.Labels[strings.TrimPrefix(k, "label.")] = v
		case k == "cpu" || k == "memory" || k == "pods" || strings.Contains(k, "/"):
			if _, err := resource.ParseQuantity(v); err != nil {
				return spec, fmt.Errorf("cluster %q: %s=%q is not a quantity (examples: cpu=8, memory=32Gi)", name, k, v)
			}
			spec.Capacity[k] = v
		default:
			return spec, fmt.Errorf("cluster %q: unknown option %q: use nodes, cpu, memory, pods, a resource name like nvidia.com/gpu, label.<key> or exec", name, k)
		}
	}
	return spec, nil
}

// ParseClusterSpecs reads a space- or comma-less list such as "rome milan:nodes=3".
func ParseClusterSpecs(list string) ([]ClusterSpec, error) {
	var specs []ClusterSpec
	seen := map[string]bool{}
	for _, f := range strings.Fields(list) {
		spec, err := ParseClusterSpec(f)
		if err != nil {
			return nil, err
		}
		if seen[spec.Name] {
			return nil, fmt.Errorf("cluster %q is named twice", spec.Name)
		}
		seen[spec.Name] = true
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("no cluster named: pass CLUSTERS=\"rome milan\" (or --clusters)")
	}
	return specs, nil
}

// Names returns the cluster names of specs, in order.
func Names(specs []ClusterSpec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
