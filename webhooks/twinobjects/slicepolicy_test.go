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

package twinobjects

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/spillway-dev/spillway/policies"
)

const (
	twinNamespace = "liqo-demo-rome-4f2a"
	consumerUser  = "system:serviceaccount:liqo-tenant-rome:spillway-consumer"
)

var (
	slicesResource = discoveryv1.SchemeGroupVersion.WithResource("endpointslices")
	slicesKind     = discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice")
	testRanges     = []netip.Prefix{netip.MustParsePrefix("10.65.0.0/16"), netip.MustParsePrefix("fd00:65::/64")}
)

// slicePolicyRun is SlicePolicy compiled by the API server's own admission
// CEL compiler, in its base environment, and evaluated by its policy
// validator: what milan's kube-apiserver (the same k8s.io/apiserver
// version) does with the published policy, short of the type checker.
type slicePolicyRun struct{ validator validating.Validator }

func newSlicePolicyRun(t testing.TB, ranges []netip.Prefix) slicePolicyRun {
	t.Helper()
	policy, _ := SlicePolicy(ranges)
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	decls := plugincel.OptionalVariableDeclarations{}
	for _, v := range policy.Spec.Variables {
		// The API server compiles a new policy's expressions in the
		// environment of new expressions: the stricter of the two.
		if res := compiler.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, decls, environment.NewExpressions); res.Error != nil {
			t.Fatalf("variable %s does not compile: %v", v.Name, res.Error)
		}
	}
	var validations, messages []plugincel.ExpressionAccessor
	for _, v := range policy.Spec.Validations {
		for _, accessor := range []plugincel.ExpressionAccessor{&validating.ValidationCondition{Expression: v.Expression}, &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}} {
			if res := compiler.CompileCELExpression(accessor, decls, environment.NewExpressions); res.Error != nil {
				t.Fatalf("%q does not compile: %v", accessor.GetExpression(), res.Error)
			}
		}
		validations = append(validations, &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason})
		messages = append(messages, &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression})
	}
	var conditions []plugincel.ExpressionAccessor
	for i := range policy.Spec.MatchConditions {
		conditions = append(conditions, (*matchconditions.MatchCondition)(&policy.Spec.MatchConditions[i]))
	}
	matcher := matchconditions.NewMatcher(compiler.CompileCondition(conditions, decls, environment.StoredExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	return slicePolicyRun{validating.NewValidator(compiler.CompileCondition(validations, decls, environment.StoredExpressions), matcher,
		compiler.CompileCondition(nil, decls, environment.StoredExpressions), compiler.CompileCondition(messages, decls, environment.StoredExpressions),
		policy.Spec.FailurePolicy, nil)}
}

// judge is the policy's verdict on username creating slice in the twin: ""
// when admitted, else the message the API server would refuse it with.
func (r slicePolicyRun) judge(slice *discoveryv1.EndpointSlice, username string) string {
	attrs := admission.NewAttributesRecord(slice, nil, slicesKind, twinNamespace, slice.Name, slicesResource, "", admission.Create,
		&metav1.CreateOptions{}, false, &user.DefaultInfo{Name: username})
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: slicesKind, VersionedObject: slice}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: twinNamespace}}
	result := r.validator.Validate(context.Background(), slicesResource, versioned, nil, ns, celconfig.RuntimeCELCostBudget, nil)
	var refusals []string
	for _, d := range result.Decisions {
		if d.Action == validating.ActionDeny {
			refusals = append(refusals, d.Message)
		}
	}
	return strings.Join(refusals, "; ")
}

// endpointSlice is a slice in the twin with one endpoint per address, each
// endpoint's targetRef in refNamespace ("" for none).
func endpointSlice(addressType discoveryv1.AddressType, refNamespace string, addresses ...string) *discoveryv1.EndpointSlice {
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: twinNamespace, Name: "web-x1"}, AddressType: addressType}
	for _, a := range addresses {
		ep := discoveryv1.Endpoint{Addresses: []string{a}}
		if refNamespace != "" {
			ep.TargetRef = &corev1.ObjectReference{Kind: "Pod", Namespace: refNamespace, Name: "web"}
		}
		slice.Endpoints = append(slice.Endpoints, ep)
	}
	return slice
}

// The policy refuses what policies.TwinEndpointSliceProblem refuses, in its
// words, and admits what it admits.
func TestSlicePolicyAgreesWithTheGoTest(t *testing.T) {
	run := newSlicePolicyRun(t, testRanges)
	for name, slice := range map[string]*discoveryv1.EndpointSlice{
		"the consumer's pods":                   endpointSlice(discoveryv1.AddressTypeIPv4, twinNamespace, "10.64.3.7", "10.64.9.1"),
		"no targetRef":                          endpointSlice(discoveryv1.AddressTypeIPv4, "", "10.64.3.7"),
		"IPv6 pods":                             endpointSlice(discoveryv1.AddressTypeIPv6, "", "fd00:64::7"),
		"no endpoints":                          endpointSlice(discoveryv1.AddressTypeIPv4, ""),
		"targetRef in kube-system":              endpointSlice(discoveryv1.AddressTypeIPv4, "kube-system", "10.64.3.7"),
		"loopback":                              endpointSlice(discoveryv1.AddressTypeIPv4, "", "10.64.3.7", "127.0.0.1"),
		"IPv6 loopback":                         endpointSlice(discoveryv1.AddressTypeIPv6, "", "::1"),
		"metadata service":                      endpointSlice(discoveryv1.AddressTypeIPv4, "", "169.254.169.254"),
		"IPv6 link-local":                       endpointSlice(discoveryv1.AddressTypeIPv6, "", "fe80::1"),
		"link-local multicast":                  endpointSlice(discoveryv1.AddressTypeIPv4, "", "224.0.0.251"),
		"unspecified":                           endpointSlice(discoveryv1.AddressTypeIPv4, "", "0.0.0.0"),
		"multicast":                             endpointSlice(discoveryv1.AddressTypeIPv4, "", "239.1.2.3"),
		"IPv6 multicast":                        endpointSlice(discoveryv1.AddressTypeIPv6, "", "ff0e::1"),
		"inside the provider's pod range":       endpointSlice(discoveryv1.AddressTypeIPv4, twinNamespace, "10.64.3.7", "10.65.0.12"),
		"inside the provider's IPv6 range":      endpointSlice(discoveryv1.AddressTypeIPv6, "", "fd00:65::12"),
		"an FQDN slice's names":                 endpointSlice(discoveryv1.AddressTypeFQDN, "", "web.example.org"),
		"an FQDN slice naming a loopback IP":    endpointSlice(discoveryv1.AddressTypeFQDN, "", "127.0.0.1"),
		"an FQDN slice naming a provider range": endpointSlice(discoveryv1.AddressTypeFQDN, "", "10.65.1.1"),
	} {
		t.Run(name, func(t *testing.T) {
			NewWithT(t).Expect(run.judge(slice, consumerUser)).To(Equal(policies.TwinEndpointSliceProblem(slice, testRanges)))
		})
	}
}

// What the CEL library cannot parse is refused, where the Go test unmaps
// it or leaves it to the API server's own validation (slicepolicy.go says
// why).
func TestSlicePolicyRefusesAddressesItCannotJudge(t *testing.T) {
	run := newSlicePolicyRun(t, testRanges)
	for _, a := range []string{"::ffff:10.64.3.7", "fe80::1%eth0", "10.64.3", "010.064.003.007"} {
		t.Run(a, func(t *testing.T) {
			g := NewWithT(t)
			slice := endpointSlice(discoveryv1.AddressTypeIPv6, "", a)
			g.Expect(run.judge(slice, consumerUser)).To(Equal(fmt.Sprintf(
				"EndpointSlice %s/web-x1 endpoints[0].addresses has %s, not a plain IP address (IPv4-mapped, zoned and malformed addresses cannot be checked): endpoints in a twin must be the consumer's pods; remove it", twinNamespace, a)))
		})
	}
}

// The provider's own controllers write into twins too: the policy leaves
// them alone, as the webhook's handler does.
func TestSlicePolicyJudgesConsumersOnly(t *testing.T) {
	g := NewWithT(t)
	run := newSlicePolicyRun(t, testRanges)
	slice := endpointSlice(discoveryv1.AddressTypeIPv4, "kube-system", "10.65.0.12")
	g.Expect(run.judge(slice, "system:serviceaccount:kube-system:endpointslice-controller")).To(BeEmpty())
	g.Expect(run.judge(slice, consumerUser)).NotTo(BeEmpty())
}

// The largest slice the API server stores (1,000 endpoints) is judged within
// the per-request CEL budget, with a dozen provider ranges: a budget error
// would refuse every large slice.
func TestSlicePolicyJudgesTheLargestSliceWithinBudget(t *testing.T) {
	g := NewWithT(t)
	ranges := append([]netip.Prefix{}, testRanges...)
	for i := range 10 {
		ranges = append(ranges, netip.MustParsePrefix(fmt.Sprintf("172.%d.0.0/16", 16+i)))
	}
	run := newSlicePolicyRun(t, ranges)
	addresses := make([]string, 1000)
	for i := range addresses {
		addresses[i] = fmt.Sprintf("10.64.%d.%d", i/250, 1+i%250)
	}
	slice := endpointSlice(discoveryv1.AddressTypeIPv4, twinNamespace, addresses...)
	g.Expect(run.judge(slice, consumerUser)).To(BeEmpty())
	slice.Endpoints[999].Addresses[0] = "172.25.0.1"
	g.Expect(run.judge(slice, consumerUser)).To(Equal(policies.TwinEndpointSliceProblem(slice, ranges)))
}

// The published ranges are the flags' prefixes as written; a mapped prefix
// is written as the IPv4 one, which the CEL library can parse.
func TestSlicePolicyRanges(t *testing.T) {
	g := NewWithT(t)
	policy, binding := SlicePolicy([]netip.Prefix{netip.MustParsePrefix("10.65.0.0/16"), netip.MustParsePrefix("::ffff:10.66.0.0/112")})
	g.Expect(policy.Spec.Variables[0].Expression).To(Equal(`["10.65.0.0/16", "10.66.0.0/16"]`))
	g.Expect(binding.Spec.PolicyName).To(Equal(policy.Name))
	g.Expect(*policy.Spec.FailurePolicy).To(Equal(admissionregistrationv1.Fail), "a policy the API server cannot evaluate refuses")
	g.Expect(policy.Spec.MatchConditions).To(Equal([]admissionregistrationv1.MatchCondition{ConsumersOnly()}))
}

// FuzzSlicePolicyNeverAdmitsWhatTheGoTestRefuses holds the policy to the Go
// test on any slice: it refuses everything the Go test refuses, and refuses
// more only for an address the CEL library cannot parse.
func FuzzSlicePolicyNeverAdmitsWhatTheGoTestRefuses(f *testing.F) {
	for _, seed := range []struct {
		addresses, refNamespace string
		addressType             uint8
	}{
		{"10.64.3.7,10.64.9.1", twinNamespace, 0}, {"127.0.0.1", "", 0}, {"10.65.200.1", "", 0}, {"fd00:65::1", "", 1},
		{"::ffff:127.0.0.1", "", 1}, {"fe80::1%25eth0", "", 1}, {"127.0.0.1", "", 2}, {"web.example.org", "", 2},
		{"10.64.3.7", "kube-system", 0}, {"239.255.255.250,10.64.0.1", "", 0}, {"ff02::fb", "", 1}, {"", "", 0},
	} {
		f.Add(seed.addresses, seed.refNamespace, seed.addressType)
	}
	run := newSlicePolicyRun(f, testRanges)
	types := []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN}
	f.Fuzz(func(t *testing.T, addresses, refNamespace string, addressType uint8) {
		list := strings.Split(addresses, ",")
		if addresses == "" || len(list) > 20 {
			list = nil
		}
		slice := endpointSlice(types[int(addressType)%len(types)], refNamespace, list...)
		goProblem := policies.TwinEndpointSliceProblem(slice, testRanges)
		refusal := run.judge(slice, consumerUser)
		if goProblem != "" && refusal == "" {
			t.Fatalf("the policy admits what the Go test refuses: %s", goProblem)
		}
		if goProblem == "" && refusal != "" && !hasAddressCELCannotParse(slice) {
			t.Fatalf("the policy refuses what the Go test admits: %s", refusal)
		}
	})
}

// hasAddressCELCannotParse reports an address the CEL library refuses to
// parse (malformed, zoned or IPv4-mapped) in an IP slice, or one with a
// colon, which no name has, in an FQDN slice.
func hasAddressCELCannotParse(slice *discoveryv1.EndpointSlice) bool {
	for _, ep := range slice.Endpoints {
		for _, a := range ep.Addresses {
			if slice.AddressType == discoveryv1.AddressTypeFQDN {
				if strings.Contains(a, ":") {
					return true
				}
				continue
			}
			if addr, err := netip.ParseAddr(a); err != nil || addr.Zone() != "" || addr.Is4In6() {
				return true
			}
		}
	}
	return false
}
