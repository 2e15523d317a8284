package resourceoffer

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestSuspendedOfferDoesNothing(t *testing.T) {
	offer := newOffer("rome", withSuspend)
	e := newEnv(t, offer, newNode("n1", rl("cpu", "8")))
	g := e.g
	res, got := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(BeZero())
	g.Expect(got.Status.Conditions).To(BeEmpty())
	g.Expect(got.Status.Offered).To(BeNil())
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(-1)))
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{}))).To(BeTrue())
}
