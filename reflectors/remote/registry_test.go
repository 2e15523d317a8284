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
