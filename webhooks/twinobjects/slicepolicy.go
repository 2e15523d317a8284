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
	"net/netip"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// Why the twins' EndpointSlices are judged by a ValidatingAdmissionPolicy.
//
// A consumer rewrites the copy of its EndpointSlice in the twin whenever one
// of its pods behind a Service comes, goes or changes readiness: of the four
// kinds the webhook judges, slices are the ones written at the rate of
// pods. Sent to this webhook, each write cost the provider's API server an
// HTTPS round trip (1.5 ms on average at 10,000 slices, where the handler's
// own work was 0.46 ms; docs/performance.md, thirteenth round). The test is
// pure arithmetic on the object, no reads, so the API server can run it
// itself, in CEL, with its IP and CIDR functions.
//
// policies.TwinEndpointSliceProblem stays the statement of the rule: the
// webhook still applies it where the API server does not take the policy
// (it publishes slices to the webhook then, see webhooks.Configurations),
// and slicepolicy_test.go holds the policy to it on the API server's own
// CEL compiler, including by fuzzing. The policy refuses one thing the Go
// test lets through: an address the CEL library will not parse (IPv4-mapped,
// zoned or malformed), which the Go test unmaps or leaves to the API
// server's own validation. A consumer's endpoints are pod addresses as its
// cluster reports them, never of those forms, and refusing what cannot be
// judged is the side to err on at a trust boundary.

// SlicePolicyName names the policy and its binding.
const SlicePolicyName = "spillway-twin-endpointslices"

// The CEL below reads the slice as the API server hands it to policies: a
// plain map, where a targetRef's namespace (a reserved word in CEL) is
// reached by index on dyn, which the type checker also accepts.
const (
	// badAddress is true for an address a consumer's endpoint may not have.
	// An FQDN slice's names are the API server's to judge, as they are the
	// Go test's, and its addresses that are IPs are judged as IPs; one with
	// a colon is no name, and may be an IP the library cannot parse.
	badAddress = `!isIP(a) ? object.addressType != 'FQDN' || a.contains(':') : ip(a).isLoopback() || ip(a).isLinkLocalUnicast() || ip(a).isLinkLocalMulticast() || ip(a).isUnspecified() ||
  cidr('224.0.0.0/4').containsIP(a) || cidr('ff00::/8').containsIP(a) ||
  variables.providerRanges.exists(r, cidr(r).containsIP(a))`
	// whyBadAddress says which of badAddress's tests a bad address fails,
	// in policies.TwinEndpointSliceProblem's words.
	whyBadAddress = `!isIP(a) ? 'not a plain IP address (IPv4-mapped, zoned and malformed addresses cannot be checked)' :
  ip(a).isLoopback() ? 'a loopback address' :
  ip(a).isLinkLocalUnicast() || ip(a).isLinkLocalMulticast() ? 'a link-local address (metadata services live there)' :
  ip(a).isUnspecified() ? 'the unspecified address' :
  cidr('224.0.0.0/4').containsIP(a) || cidr('ff00::/8').containsIP(a) ? 'a multicast address' :
  "inside the provider's own range " + variables.providerRanges.filter(r, cidr(r).containsIP(a))[0]`
	// foreignTarget is true for an endpoint whose targetRef names another
	// namespace than the twin's.
	foreignTarget = `has(e.targetRef) && 'namespace' in dyn(e.targetRef) &&
  dyn(e.targetRef)['namespace'] != '' && dyn(e.targetRef)['namespace'] != request.namespace`
	// noEndpoints is true for a slice without endpoints, whose list the
	// API server hands over as null (the field has no omitempty).
	noEndpoints = `(!has(object.endpoints) || dyn(object.endpoints) == null)`
	sliceName   = `'EndpointSlice ' + request.namespace + '/' + (has(object.metadata.name) ? object.metadata.name : '') + ' '`
)

// slicePolicyVariables list the slice's problems, each as the field and
// what is wrong with it; empty lists admit it.
func slicePolicyVariables(ranges []netip.Prefix) []admissionregistrationv1.Variable {
	return []admissionregistrationv1.Variable{
		{Name: "providerRanges", Expression: celStringList(ranges)},
		{Name: "foreignTargets", Expression: noEndpoints + ` ? [] : object.endpoints.transformList(i, e, ` + foreignTarget + `,
  'endpoints[' + string(i) + '].targetRef names namespace "' + dyn(e.targetRef)['namespace'] + '"')`},
		{Name: "badAddresses", Expression: noEndpoints + ` ? [] :
object.endpoints.transformList(i, e, e.addresses.exists(a, ` + badAddress + `),
  'endpoints[' + string(i) + '].addresses has ' + e.addresses.filter(a, ` + badAddress + `).map(a, a + ', ' + (` + whyBadAddress + `))[0])`},
	}
}

// slicePolicyValidations refuse a slice with either kind of problem, with
// the first one in policies.TwinEndpointSliceProblem's message.
func slicePolicyValidations() []admissionregistrationv1.Validation {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	return []admissionregistrationv1.Validation{{
		Expression:        `size(variables.foreignTargets) == 0`,
		MessageExpression: sliceName + ` + variables.foreignTargets[0] + ': an endpoint in a twin may only refer to objects of the twin; drop the targetRef or its namespace'`,
		Message:           "an endpoint in a twin may only refer to objects of the twin; drop the targetRef or its namespace",
		Reason:            forbidden,
	}, {
		Expression:        `size(variables.badAddresses) == 0`,
		MessageExpression: sliceName + ` + variables.badAddresses[0] + ": endpoints in a twin must be the consumer's pods; remove it"`,
		Message:           "endpoints in a twin must be the consumer's pods: remove addresses that are loopback, link-local, unspecified, multicast or in the provider's own ranges",
		Reason:            forbidden,
	}}
}

// celStringList is ranges as a CEL list of strings, each prefix as the
// flags gave it (policies.TwinEndpointSliceProblem names it so). An
// IPv4-mapped prefix is written as the IPv4 one it maps: the CEL library
// parses no mapped form.
func celStringList(ranges []netip.Prefix) string {
	quoted := make([]string, 0, len(ranges))
	for _, p := range ranges {
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		quoted = append(quoted, strconv.Quote(p.String()))
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// SlicePolicy is the policy that judges the EndpointSlices consumers write
// into twins, and the binding that makes it refuse. Defaults the API server
// would fill in are spelled out, so that republishing finds nothing to
// update.
func SlicePolicy(ranges []netip.Prefix) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: SlicePolicyName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: sharingv1alpha1.TwinNamespaceLabel, Operator: metav1.LabelSelectorOpExists}}},
				ObjectSelector: &metav1.LabelSelector{},
				MatchPolicy:    ptr.To(admissionregistrationv1.Equivalent),
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"discovery.k8s.io"}, APIVersions: []string{"v1"},
						Resources: []string{"endpointslices"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)}}}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{ConsumersOnly()},
			Variables:       slicePolicyVariables(ranges),
			Validations:     slicePolicyValidations(),
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: SlicePolicyName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: SlicePolicyName,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
	return policy, binding
}
