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

package namespaceoffloading

import (
	"testing"

	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

func TestASuspendedOffloadingRequestsNothing(t *testing.T) {
	e := newEnv(t, newOffloading(withSuspend), virtualNode("milan"))
	milan := e.connect("milan")

	res, no := e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).To(BeNil())
	e.g.Expect(schedulingLabel(e)).To(BeEmpty())
	e.g.Expect(controllerutil.ContainsFinalizer(no, Finalizer)).To(BeTrue(), "a later deletion still cleans up")
	e.g.Expect(conditions.IsReconciling(no)).To(BeFalse())
	e.g.Expect(res.RequeueAfter).To(BeZero(), "nothing is polled while suspended")
}

func TestSuspendingFreezesTheTwins(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan", "region", "north"))
	milan := e.connect("milan")
	e.mustReconcile()

	no := e.offloading()
	withSuspend(no)
	withSelector("region", "south")(no) // would withdraw milan's twin if acted on
	e.g.Expect(e.c.Update(t.Context(), no)).To(Succeed())
	e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).NotTo(BeNil(), "the twin and its workloads stay as they are while suspended")
}
