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

package status

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// WriteText renders the status in three sections. Each row that is not
// Ready is followed by indented lines giving the reason and message.
func (s *Status) WriteText(w io.Writer) error {
	var b strings.Builder
	s.writePeerings(&b)
	b.WriteString("\n")
	s.writeVirtualNodes(&b)
	b.WriteString("\n")
	s.writeOffloadings(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// table is rows aligned in columns, each row followed by its detail lines,
// which do not take part in the alignment.
type table struct {
	header  []string
	rows    [][]string
	details [][]string
}

func (t *table) add(row []string, details ...string) {
	t.rows = append(t.rows, row)
	t.details = append(t.details, details)
}

func (t *table) write(b *strings.Builder) {
	var aligned bytes.Buffer
	tw := tabwriter.NewWriter(&aligned, 0, 4, 2, ' ', 0)
	for _, r := range append([][]string{t.header}, t.rows...) {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
	lines := strings.Split(strings.TrimSuffix(aligned.String(), "\n"), "\n")
	for i, l := range lines {
		b.WriteString("  " + strings.TrimRight(l, " ") + "\n")
		if i == 0 {
			continue
		}
		for _, d := range t.details[i-1] {
			b.WriteString("    " + d + "\n")
		}
	}
}

func (s *Status) writePeerings(b *strings.Builder) {
	b.WriteString("Peerings\n")
	if len(s.ForeignClusters) == 0 {
		b.WriteString("  none: no ForeignCluster in this cluster\n")
		return
	}
	t := &table{header: []string{"NAME", "CLUSTER ID", "OUTGOING", "INCOMING", "NETWORK", "AUTH", "READY"}}
	for i := range s.ForeignClusters {
		fc := &s.ForeignClusters[i]
		ready := meta.FindStatusCondition(fc.Status.Conditions, discoveryv1alpha1.ReadyCondition)
		var details []string
		if ready == nil || ready.Status != metav1.ConditionTrue {
			details = append(details, "not Ready: "+why(ready, "the controller has not reported on it yet"))
		}
		for _, pc := range fc.Status.PeeringConditions {
			if pc.Status == discoveryv1alpha1.PeeringConditionStatusError || pc.Status == discoveryv1alpha1.PeeringConditionStatusDenied {
				details = append(details, fmt.Sprintf("%s %s: %s", pc.Type, pc.Status, reasonMessage(pc.Reason, pc.Message)))
			}
		}
		t.add([]string{fc.Name, fc.Spec.ClusterIdentity.ClusterID,
			string(fc.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)), string(fc.PeeringStatus(discoveryv1alpha1.IncomingPeeringCondition)),
			string(fc.PeeringStatus(discoveryv1alpha1.NetworkStatusCondition)),
			string(fc.PeeringStatus(discoveryv1alpha1.AuthenticationStatusCondition)), conditionStatus(ready)}, details...)
	}
	t.write(b)
}

func (s *Status) writeVirtualNodes(b *strings.Builder) {
	b.WriteString("Virtual nodes\n")
	if len(s.VirtualNodes) == 0 {
		b.WriteString("  none: no outgoing peering has a virtual node yet\n")
		return
	}
	t := &table{header: []string{"NAME", "PEER", "READY", "CPU", "MEMORY"}}
	for i := range s.VirtualNodes {
		n := &s.VirtualNodes[i]
		peer, _ := s.peerName(n.Labels[discoveryv1alpha1.RemoteClusterIDLabel])
		ready := nodeReady(n)
		status := "Unknown"
		var details []string
		switch {
		case ready == nil:
			details = append(details, "not Ready: the node reports no Ready condition")
		case ready.Status != corev1.ConditionTrue:
			status = string(ready.Status)
			details = append(details, "not Ready: "+reasonMessage(ready.Reason, ready.Message))
		default:
			status = string(ready.Status)
		}
		t.add([]string{n.Name, peer, status, quantity(n, corev1.ResourceCPU), quantity(n, corev1.ResourceMemory)}, details...)
	}
	t.write(b)
}

func (s *Status) writeOffloadings(b *strings.Builder) {
	b.WriteString("Offloaded namespaces\n")
	if len(s.Offloadings) == 0 {
		b.WriteString("  none\n")
		return
	}
	t := &table{header: []string{"NAMESPACE", "PHASE", "PODS", "REMOTE NAMESPACE", "READY"}}
	for i := range s.Offloadings {
		no := &s.Offloadings[i]
		ready := meta.FindStatusCondition(no.Status.Conditions, offloadingv1alpha1.ReadyCondition)
		var details []string
		if ready == nil || ready.Status != metav1.ConditionTrue {
			details = append(details, "not Ready: "+why(ready, "the controller has not reported on it yet"))
		}
		for _, rc := range s.remoteConditions(no) {
			var parts []string
			for _, c := range rc.conditions {
				part := fmt.Sprintf("%s=%s", c.Type, c.Status)
				if c.Reason != "" {
					part += " (" + c.Reason + ")"
				}
				if c.Status != metav1.ConditionTrue && c.Message != "" {
					part += ": " + c.Message
				}
				parts = append(parts, part)
			}
			details = append(details, rc.peer+": "+strings.Join(parts, ", "))
		}
		t.add([]string{no.Namespace, orDash(string(no.Status.OffloadingPhase)), orDash(string(no.Spec.PodOffloadingStrategy)),
			orDash(no.Status.RemoteNamespaceName), conditionStatus(ready)}, details...)
	}
	t.write(b)
}

func conditionStatus(c *metav1.Condition) string {
	if c == nil {
		return "Unknown"
	}
	return string(c.Status)
}

func why(c *metav1.Condition, none string) string {
	if c == nil {
		return none
	}
	return reasonMessage(c.Reason, c.Message)
}

func reasonMessage(reason, message string) string {
	switch {
	case reason == "":
		return orDash(message)
	case message == "":
		return reason
	}
	return reason + ": " + message
}

func nodeReady(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func quantity(n *corev1.Node, name corev1.ResourceName) string {
	if q, ok := n.Status.Allocatable[name]; ok {
		return q.String()
	}
	return "-"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
