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

package podbench

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/spillway-dev/spillway/e2e/lab"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigDefaultsTo100And1000Pods(t *testing.T) {
	g := NewWithT(t)
	c, err := ConfigFromEnv(env(nil))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Counts).To(Equal([]int{100, 1000}))
	g.Expect(c.LabQPS).To(Equal(lab.DefaultClientQPS))
	g.Expect(c.CreatorQPS).To(BeNumerically(">", 0))
	g.Expect(c.TwoHops).To(BeTrue(), "issue 16: two hops are in every `make bench`")
}

func TestTwoHopsCanBeLeftOut(t *testing.T) {
	g := NewWithT(t)
	for v, want := range map[string]bool{"0": false, "false": false, "1": true, "true": true} {
		c, err := ConfigFromEnv(env(map[string]string{EnvTwoHops: v}))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(c.TwoHops).To(Equal(want), "%s=%s", EnvTwoHops, v)
	}
}

func TestLabSpecPutsTheBrokerLast(t *testing.T) {
	g := NewWithT(t)
	cfg := DefaultConfig
	specs, err := lab.ParseClusterSpecs(LabSpec(cfg))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(specs).To(HaveLen(3))
	g.Expect([]string{specs[0].Name, specs[1].Name, specs[2].Name}).To(Equal([]string{"rome", "milan", "genoa"}))
	cfg.TwoHops = false
	specs, err = lab.ParseClusterSpecs(LabSpec(cfg))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(specs).To(HaveLen(2))
}

func TestConfigFromEnv(t *testing.T) {
	g := NewWithT(t)
	c, err := ConfigFromEnv(env(map[string]string{EnvPods: "100, 1000 10000", EnvQPS: "25", EnvLabQPS: "50", EnvWorkers: "4"}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Counts).To(Equal([]int{100, 1000, 10000}))
	g.Expect(c.CreatorQPS).To(Equal(25.0))
	g.Expect(c.LabQPS).To(Equal(lab.ClientQPS{QPS: 50, Burst: 100}))
	g.Expect(c.CreatorWorkers).To(Equal(4))
	g.Expect(DefaultConfig.Counts).To(Equal([]int{100, 1000}), "the defaults are not modified")
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	for k, v := range map[string]string{EnvPods: "100 lots", EnvQPS: "-1", EnvLabQPS: "fast", EnvWorkers: "0", EnvTwoHops: "maybe"} {
		_, err := ConfigFromEnv(env(map[string]string{k: v}))
		NewWithT(t).Expect(err).To(MatchError(ContainSubstring(k)), k)
	}
	_, err := ConfigFromEnv(env(map[string]string{EnvPods: " , "}))
	NewWithT(t).Expect(err).To(MatchError(ContainSubstring("no pod count")))
}

func TestProviderHoldsTwoAndAHalfTimesTheLargestBatch(t *testing.T) {
	g := NewWithT(t)
	for _, counts := range [][]int{{100}, {100, 1000}, {10000, 100}} {
		spec, err := lab.ParseClusterSpec(ProviderSpec("milan", counts))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(spec.Name).To(Equal("milan"))
		perNode := resource.MustParse(spec.Capacity["pods"])
		largest := max(counts[0], counts[len(counts)-1])
		g.Expect(perNode.Value()*int64(spec.Nodes)).To(BeNumerically(">=", int64(largest)*5/2), "counts %v", counts)
		g.Expect(perNode.Value()).To(BeNumerically(">=", 110))
	}
}

func TestTheLocalReferenceIsOnByDefaultAndCanBeLeftOut(t *testing.T) {
	g := NewWithT(t)
	c, err := ConfigFromEnv(env(nil))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Local).To(BeTrue(), "target 3's reference is in every `make bench`")
	c, err = ConfigFromEnv(env(map[string]string{EnvLocal: "0"}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Local).To(BeFalse())
	_, err = ConfigFromEnv(env(map[string]string{EnvLocal: "maybe"}))
	g.Expect(err).To(MatchError(ContainSubstring(EnvLocal)))
}

// rome keeps the lab's default nodes, and with the local reference gets room
// for the largest batch on them.
func TestConsumerSpecMakesRoomForTheLocalPods(t *testing.T) {
	g := NewWithT(t)
	cfg := DefaultConfig
	cfg.Counts = []int{1000, 10000}
	spec, err := lab.ParseClusterSpec(ConsumerSpec(cfg))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(spec.Name).To(Equal("rome"))
	g.Expect(spec.Nodes).To(Equal(lab.DefaultNodes))
	room := resource.MustParse(spec.Capacity["pods"])
	g.Expect(room.Value() * int64(spec.Nodes)).To(BeNumerically(">=", 10000))

	cfg.Local = false
	spec, err = lab.ParseClusterSpec(ConsumerSpec(cfg))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(spec.Capacity).To(Equal(lab.DefaultCapacity()), "without the reference rome is as before")
}

func TestRestDefaultsTo30sAndCanBeLeftOut(t *testing.T) {
	g := NewWithT(t)
	c, err := ConfigFromEnv(env(nil))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Rest).To(Equal(30 * time.Second))
	for v, want := range map[string]time.Duration{"0": 0, "0s": 0, "1m": time.Minute, "45s": 45 * time.Second} {
		c, err := ConfigFromEnv(env(map[string]string{EnvRest: v}))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(c.Rest).To(Equal(want), "%s=%s", EnvRest, v)
	}
	for _, v := range []string{"30", "-1s", "soon"} {
		_, err := ConfigFromEnv(env(map[string]string{EnvRest: v}))
		g.Expect(err).To(MatchError(ContainSubstring(EnvRest)), "%s=%s", EnvRest, v)
	}
}
