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

package remote

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestRegistry(t *testing.T) {
	g := NewWithT(t)
	var r Registry
	_, ok := r.Get("milan-id")
	g.Expect(ok).To(BeFalse())
	r.Set(Peer{ClusterID: "naples-id", NodeName: "liqo-naples"})
	r.Set(Peer{ClusterID: "milan-id", NodeName: "liqo-milan", TenantNamespace: "old"})
	r.Set(Peer{ClusterID: "milan-id", NodeName: "liqo-milan", TenantNamespace: "liqo-tenant-rome"})
	p, ok := r.ByNode("liqo-milan")
	g.Expect(ok).To(BeTrue())
	g.Expect(p.TenantNamespace).To(Equal("liqo-tenant-rome"))
	g.Expect(r.List()).To(HaveLen(2))
	g.Expect(r.List()[0].ClusterID).To(Equal("milan-id"))
	r.Delete("milan-id")
	_, ok = r.ByNode("liqo-milan")
	g.Expect(ok).To(BeFalse())
}
