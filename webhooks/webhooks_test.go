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

package webhooks

import (
	"context"
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestConfigurationsCarryTheDocumentedFailurePolicies(t *testing.T) {
	g := NewWithT(t)
	m, v := Configurations(Options{Namespace: "liqo", ServiceName: "spillway-webhook"}, []byte("CA"), false)
	pod := m.Webhooks[0]
	g.Expect(*pod.FailurePolicy).To(Equal(admissionregistrationv1.Fail))
	g.Expect(pod.NamespaceSelector.MatchLabels).To(Equal(map[string]string{"liqo.io/scheduling-enabled": "true"}),
		"pods of namespaces that are not offloaded never call the webhook")
	g.Expect(pod.ClientConfig.Service.Name).To(Equal("spillway-webhook"))
	g.Expect(pod.ClientConfig.CABundle).To(Equal([]byte("CA")))
	byName := map[string]admissionregistrationv1.ValidatingWebhook{}
	for _, w := range v.Webhooks {
		byName[w.Name] = w
	}
	g.Expect(*byName["namespaceoffloading.spillway.liqo.io"].FailurePolicy).To(Equal(admissionregistrationv1.Ignore))
	g.Expect(*byName["shadowpod.spillway.liqo.io"].FailurePolicy).To(Equal(admissionregistrationv1.Fail))
	twins := byName["twinobjects.spillway.liqo.io"]
	g.Expect(*twins.FailurePolicy).To(Equal(admissionregistrationv1.Fail))
	g.Expect(twins.NamespaceSelector.MatchExpressions[0].Key).To(Equal("liqo.io/twin-namespace"), "twin namespaces only")
	g.Expect(twins.MatchConditions).To(HaveExactElements(admissionregistrationv1.MatchCondition{Name: "consumers-only",
		Expression: `request.userInfo.username.startsWith("system:serviceaccount:liqo-tenant-")`}),
		"the provider's own writes into twins never make the round trip")
	g.Expect(twinResources(v)).To(ConsistOf("services", "endpointslices", "ingresses", "persistentvolumeclaims"))
	_, v = Configurations(Options{Namespace: "liqo", ServiceName: "spillway-webhook"}, []byte("CA"), true)
	g.Expect(twinResources(v)).To(ConsistOf("services", "ingresses", "persistentvolumeclaims"),
		"with the API server's policy in force, slices make no round trip")
}

// fakeAPIServer is a fake client of client-go's kinds, the webhook and
// admission policy configurations among them, calling funcs where set.
func fakeAPIServer(funcs interceptor.Funcs) client.WithWatch {
	return fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithInterceptorFuncs(funcs).Build()
}

// twinResources are the resources the twin objects webhook is sent.
func twinResources(v *admissionregistrationv1.ValidatingWebhookConfiguration) []string {
	var resources []string
	for _, w := range v.Webhooks {
		if w.Name != "twinobjects.spillway.liqo.io" {
			continue
		}
		for _, r := range w.Rules {
			resources = append(resources, r.Resources...)
		}
	}
	return resources
}

// The webhook lets go of the twins' EndpointSlices only once the policy has
// been in place, as wanted, for a whole interval: the API server enforces a
// policy a moment after storing it, and no slice may go unjudged meanwhile.
func TestSlicesLeaveTheWebhookOneIntervalAfterThePolicyIsInPlace(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	c := fakeAPIServer(interceptor.Funcs{})
	pub := &publisher{client: c, options: Options{Namespace: "liqo", ServiceName: "spillway-webhook",
		ProviderRanges: []netip.Prefix{netip.MustParsePrefix("10.200.0.0/16")}}}
	published := func() []string {
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: ValidatingConfigurationName}, v)).To(Succeed())
		return twinResources(v)
	}

	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	g.Expect(published()).To(ContainElement("endpointslices"), "the policy was only just created")
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "spillway-twin-endpointslices"}, policy)).To(Succeed())
	g.Expect(policy.Spec.Variables[0].Expression).To(Equal(`["10.200.0.0/16"]`))
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "spillway-twin-endpointslices"}, binding)).To(Succeed())
	g.Expect(binding.Spec.ValidationActions).To(ConsistOf(admissionregistrationv1.Deny))

	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	g.Expect(published()).NotTo(ContainElement("endpointslices"), "the policy was in place for a whole interval")

	// A manager restarted with other ranges changes the policy: the webhook
	// judges slices again until the change has been in place for an interval.
	pub.options.ProviderRanges = []netip.Prefix{netip.MustParsePrefix("10.201.0.0/16")}
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	g.Expect(published()).To(ContainElement("endpointslices"))
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	g.Expect(published()).NotTo(ContainElement("endpointslices"))
}

// An API server without admission policies refuses the policy: the webhook
// keeps judging slices, and the other configurations are still published.
func TestSlicesStayWithTheWebhookWhereThePolicyIsRefused(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	refuse := interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if _, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok {
			return &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}}
		}
		return c.Create(ctx, obj, opts...)
	}}
	c := fakeAPIServer(refuse)
	pub := &publisher{client: c, options: Options{Namespace: "liqo", ServiceName: "spillway-webhook"}}
	for range 2 {
		g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: ValidatingConfigurationName}, v)).To(Succeed())
		g.Expect(twinResources(v)).To(ContainElement("endpointslices"))
	}
}

func TestOptionsHosts(t *testing.T) {
	g := NewWithT(t)
	hosts, err := Options{Namespace: "liqo", ServiceName: "spillway-webhook"}.Hosts()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(hosts).To(ContainElement("spillway-webhook.liqo.svc"))
	hosts, err = Options{URL: "https://127.0.0.1:18425"}.Hosts()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(hosts).To(Equal([]string{"127.0.0.1"}))
	_, err = Options{URL: "not a url"}.Hosts()
	g.Expect(err).To(MatchError(ContainSubstring("--webhook-url")))
}

func TestPublishedConfigurationsAreOwnedByTheInstallsClusterRole(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	c := fakeAPIServer(interceptor.Funcs{})
	o := Options{Namespace: "liqo", ServiceName: "spillway-webhook", OwnerClusterRole: "spillway-controller"}
	pub := &publisher{client: c, options: o}
	owners := func() ([]metav1.OwnerReference, []metav1.OwnerReference) {
		m := &admissionregistrationv1.MutatingWebhookConfiguration{}
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: MutatingConfigurationName}, m)).To(Succeed())
		g.Expect(c.Get(ctx, client.ObjectKey{Name: ValidatingConfigurationName}, v)).To(Succeed())
		return m.OwnerReferences, v.OwnerReferences
	}

	// Without the ClusterRole (a manager run without kustomize/rbac) the
	// webhooks are still published, unowned.
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	m, v := owners()
	g.Expect(m).To(BeEmpty())
	g.Expect(v).To(BeEmpty())

	// The fake client assigns no UIDs: the test does, as the API server would.
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "spillway-controller", UID: "first"}}
	g.Expect(c.Create(ctx, role)).To(Succeed())
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	want := metav1.OwnerReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "spillway-controller", UID: role.UID}
	m, v = owners()
	g.Expect(m).To(ConsistOf(want), "the garbage collector deletes the pod webhook when the ClusterRole is pruned")
	g.Expect(v).To(ConsistOf(want))
	g.Expect(m[0].BlockOwnerDeletion).To(BeNil(), "blocking would need delete rights on ClusterRoles")

	// A recreated ClusterRole (new UID) is picked up at the next check.
	g.Expect(c.Delete(ctx, role)).To(Succeed())
	role = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "spillway-controller", UID: "second"}}
	g.Expect(c.Create(ctx, role)).To(Succeed())
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	m, _ = owners()
	g.Expect(m).To(ConsistOf(HaveField("UID", types.UID("second"))))

	// --webhook-owner-cluster-role= opts out.
	o.OwnerClusterRole = ""
	pub = &publisher{client: c, options: o}
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	m, v = owners()
	g.Expect(m).To(BeEmpty())
	g.Expect(v).To(BeEmpty())
}

// Pruning the install deletes the ClusterRole while the manager still runs:
// its next checks must neither strip the owner before the garbage collector
// acts nor put the configurations back, unowned, after it did.
func TestConfigurationsWhoseOwnerIsPrunedAreLeftToTheGarbageCollector(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	c := fakeAPIServer(interceptor.Funcs{})
	o := Options{Namespace: "liqo", ServiceName: "spillway-webhook", OwnerClusterRole: "spillway-controller"}
	pub := &publisher{client: c, options: o}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "spillway-controller", UID: "first"}}
	g.Expect(c.Create(ctx, role)).To(Succeed())
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	configurations := func() []client.Object {
		return []client.Object{
			&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigurationName}},
			&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: ValidatingConfigurationName}},
		}
	}
	expectOwnedBy := func(uid types.UID) {
		for _, obj := range configurations() {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			g.Expect(obj.GetOwnerReferences()).To(ConsistOf(HaveField("UID", uid)), "%T", obj)
		}
	}

	// The role is pruned; the garbage collector has not run yet.
	g.Expect(c.Delete(ctx, role)).To(Succeed())
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	expectOwnedBy("first")
	// A manager restarted at this moment has never seen the owner, and
	// still leaves the reference alone.
	g.Expect((&publisher{client: c, options: o}).publish(ctx, []byte("CA"))).To(Succeed())
	expectOwnedBy("first")

	// The garbage collector deleted them: not put back while the role is gone.
	for _, obj := range configurations() {
		g.Expect(c.Delete(ctx, obj)).To(Succeed())
	}
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	for _, obj := range configurations() {
		g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(obj), obj))).To(BeTrue(), "%T republished without its owner", obj)
	}

	// The install is applied again: published, owned by the new role.
	role = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "spillway-controller", UID: "second"}}
	g.Expect(c.Create(ctx, role)).To(Succeed())
	g.Expect(pub.publish(ctx, []byte("CA"))).To(Succeed())
	expectOwnedBy("second")
}
