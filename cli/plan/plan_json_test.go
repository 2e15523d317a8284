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

package plan

import (
	"bytes"
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	sigsjson "sigs.k8s.io/json"
)

func TestPlanJSONDecodesIntoThePlan(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "namespaceMappingStrategy: DefaultName", "namespaceMappingStrategy: EnforceSameName")
	write(t, head, "milan/config/resourceoffer-rome.yaml", fixedOffer("8", "32Gi", "1")+"  sharingPercentage: 50\n")
	p := compute(t, base, head, Options{})

	var out bytes.Buffer
	g.Expect(p.WriteJSON(&out)).To(Succeed())
	var decoded Plan
	strictErrs, err := sigsjson.UnmarshalStrict(out.Bytes(), &decoded)
	g.Expect(errors.Join(append(strictErrs, err)...)).NotTo(HaveOccurred())
	g.Expect(decoded).To(Equal(*p))
	g.Expect(decoded.Rejected).To(BeTrue())
	g.Expect(decoded.Clusters).To(HaveLen(2))
	g.Expect(decoded.Clusters[0].Name).To(Equal("milan"))
	g.Expect(decoded.Clusters[1].Name).To(Equal("rome"))

	// The field names bots read.
	var generic map[string]any
	g.Expect(sigsjson.UnmarshalCaseSensitivePreserveInts(out.Bytes(), &generic)).To(Succeed())
	g.Expect(generic).To(HaveKey("rejected"))
	change := generic["clusters"].([]any)[1].(map[string]any)["changes"].([]any)[0].(map[string]any)
	g.Expect(change).To(HaveLen(4))
	g.Expect(change).To(HaveKeyWithValue("kind", "MappingStrategyChange"))
	g.Expect(change).To(HaveKeyWithValue("namespace", "liqo-demo"))
	g.Expect(change).To(HaveKeyWithValue("rejected", true))
	g.Expect(change).To(HaveKey("message"))
}

func TestPlanJSONOfNoChangeHasAnEmptyList(t *testing.T) {
	g := NewWithT(t)
	p := compute(t, copyFleet(t), copyFleet(t), Options{})
	var out bytes.Buffer
	g.Expect(p.WriteJSON(&out)).To(Succeed())
	g.Expect(out.String()).To(MatchJSON(`{"clusters":[],"rejected":false}`))
}
