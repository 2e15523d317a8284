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

package pod

import (
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	vkapi "github.com/virtual-kubelet/virtual-kubelet/node/api"
	"k8s.io/streaming/pkg/httpstream"
)

func TestPodLogOptionsKeepWhatKubectlAskedFor(t *testing.T) {
	g := NewWithT(t)
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := PodLogOptions("web", vkapi.ContainerLogOpts{Tail: 10, LimitBytes: 2048, Timestamps: true, Follow: true, Previous: true, SinceTime: since})
	g.Expect(o.Container).To(Equal("web"))
	g.Expect(*o.TailLines).To(Equal(int64(10)))
	g.Expect(*o.LimitBytes).To(Equal(int64(2048)))
	g.Expect(o.Timestamps && o.Follow && o.Previous).To(BeTrue())
	g.Expect(o.SinceTime.Time).To(Equal(since))
	g.Expect(o.SinceSeconds).To(BeNil())

	none := PodLogOptions("web", vkapi.ContainerLogOpts{SinceSeconds: 30})
	g.Expect(none.TailLines).To(BeNil(), "no tail means the whole log, not zero lines")
	g.Expect(none.LimitBytes).To(BeNil())
	g.Expect(*none.SinceSeconds).To(Equal(int64(30)))
	g.Expect(none.SinceTime).To(BeNil())
}

// client-go's websocket round tripper reports a refused upgrade with
// k8s.io/streaming's UpgradeFailureError; exec must then retry over SPDY.
func TestExecFallsBackToSPDYWhenTheWebsocketUpgradeFails(t *testing.T) {
	g := NewWithT(t)
	refused := fmt.Errorf("exec: %w", &httpstream.UpgradeFailureError{Cause: errors.New("websocket: bad handshake")})
	g.Expect(shouldFallBackToSPDY(refused)).To(BeTrue())
	g.Expect(shouldFallBackToSPDY(errors.New("container not found"))).To(BeFalse())
}
