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

// Package webhooks serves Spillway's admission webhooks from the manager and
// publishes their configurations itself, with a CA bundle it rotates
// (webhooks/certs). The configurations are not in git: they carry a CA that
// only the running manager knows, and keeping them out of the fleet repo is
// what keeps Flux's drift detection empty. They are owned by the manager's
// ClusterRole, so uninstalling removes them (see owner.go).
//
// Failure policies, and why:
//   - pod placement (mutating, namespaces labelled liqo.io/scheduling-enabled
//     only): Fail. A pod admitted without its placement could run where the
//     namespace's policy forbids; pods of every other namespace never call it.
//   - NamespaceOffloading (validating): Ignore. The CRD's CEL rules keep the
//     name and the mapping strategy while the webhook is down; only the
//     selector check and the warnings wait for it.
//   - ShadowPod (validating, on providers, twin namespaces only, CREATE and
//     UPDATE): Fail. A consumer must not outgrow its offer nor run a pod the
//     provider's pod policy forbids; while the webhook is down, new offloaded
//     pods wait and running ones are untouched.
//   - Services, EndpointSlices and Ingresses (validating, on providers, twin
//     namespaces only, consumers' writes only): Fail. What a consumer could
//     otherwise slip in reaches outside its twin; while the webhook is down
//     reflection retries and nothing of the provider's is blocked.
package webhooks

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/webhooks/certs"
	"github.com/spillway-dev/spillway/webhooks/namespaceoffloading"
	"github.com/spillway-dev/spillway/webhooks/pod"
	"github.com/spillway-dev/spillway/webhooks/shadowpod"
	"github.com/spillway-dev/spillway/webhooks/twinobjects"
)

// Names of the configurations the manager publishes.
const (
	MutatingConfigurationName   = "spillway-pod-placement"
	ValidatingConfigurationName = "spillway-validation"
)

// Options say where the webhooks listen and how the API server reaches them.
type Options struct {
	// Port is the HTTPS port; BindHost the address to listen on ("" for all).
	Port     int
	BindHost string
	CertDir  string
	// Namespace and ServiceName locate the Service in front of the manager;
	// URL, when set, is dialled directly instead (the lab, where the
	// manager is a process on loopback).
	Namespace, ServiceName, URL string
	// SecretName holds the certificate material.
	SecretName string
	// ProviderRanges are this cluster's own networks, where no endpoint a
	// consumer writes into a twin may point (see webhooks/twinobjects).
	ProviderRanges []netip.Prefix
	// OwnerClusterRole owns the configurations, so that pruning the install
	// deletes them; empty publishes them without an owner.
	OwnerClusterRole string
	// CheckInterval is how often the certificate is checked and the
	// configurations republished (one deleted by hand comes back).
	CheckInterval time.Duration
}

// Server is the webhook server the manager runs.
func (o Options) Server() webhook.Server {
	return webhook.NewServer(webhook.Options{Host: o.BindHost, Port: o.Port, CertDir: o.CertDir})
}

// Hosts are the names the serving certificate must carry.
func (o Options) Hosts() ([]string, error) {
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || u.Hostname() == "" {
			return nil, fmt.Errorf("--webhook-url %q is not a URL with a host: give e.g. https://127.0.0.1:9443", o.URL)
		}
		return []string{u.Hostname()}, nil
	}
	svc := o.ServiceName + "." + o.Namespace
	return []string{svc, svc + ".svc", svc + ".svc.cluster.local"}, nil
}

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations;validatingwebhookconfigurations;validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers,verbs=get;list;watch
// +kubebuilder:rbac:groups=virtualkubelet.liqo.io,resources=shadowpods,verbs=get;list;watch
// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings,verbs=get;list;watch

// Register serves the webhooks on mgr, makes sure the certificate exists
// before the server starts (direct must work without the manager's cache),
// and keeps it rotated.
func Register(ctx context.Context, mgr ctrl.Manager, direct client.Client, o Options) error {
	hosts, err := o.Hosts()
	if err != nil {
		return err
	}
	srv, dec := mgr.GetWebhookServer(), admission.NewDecoder(mgr.GetScheme())
	srv.Register(pod.Path, &webhook.Admission{Handler: &pod.Mutator{Reader: mgr.GetClient(), LiveReader: mgr.GetAPIReader()}})
	srv.Register(namespaceoffloading.Path, &webhook.Admission{Handler: &namespaceoffloading.Validator{Decoder: dec}})
	srv.Register(shadowpod.Path, &webhook.Admission{Handler: &shadowpod.Validator{Reader: mgr.GetClient(), Decoder: dec, Usage: &shadowpod.Usage{Informers: mgr.GetCache()}}})
	srv.Register(twinobjects.Path, &webhook.Admission{Handler: &twinobjects.Validator{Decoder: dec, ProviderRanges: o.ProviderRanges, Reader: mgr.GetClient()}})
	rot := &rotator{certs.Rotator{Client: direct, Secret: types.NamespacedName{Namespace: o.Namespace, Name: o.SecretName},
		CertDir: o.CertDir, Hosts: hosts, Interval: o.CheckInterval, Publish: (&publisher{client: direct, options: o}).publish}}
	if err := rot.Ensure(ctx); err != nil {
		return fmt.Errorf("bootstrapping the webhook certificate: %w", err)
	}
	return mgr.Add(rot)
}

// rotator runs on every replica, leader or not: each serves webhooks from
// its own files, so each must keep them fresh.
type rotator struct{ certs.Rotator }

func (*rotator) NeedLeaderElection() bool { return false }

func (o Options) clientConfig(path string, ca []byte) admissionregistrationv1.WebhookClientConfig {
	if o.URL != "" {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(o.URL + path), CABundle: ca}
	}
	// The port is the API server's default, spelled out so that the
	// periodic republish finds nothing to update.
	return admissionregistrationv1.WebhookClientConfig{CABundle: ca, Service: &admissionregistrationv1.ServiceReference{
		Namespace: o.Namespace, Name: o.ServiceName, Path: ptr.To(path), Port: ptr.To(int32(443))}}
}

// Configurations are the webhook configurations for a CA bundle. The twin
// objects webhook is sent the twins' EndpointSlices only when slicesByPolicy
// is false: the API server did not take twinobjects.SlicePolicy (too old, or
// admission policies disabled), so the webhook's handler judges them.
func Configurations(o Options, ca []byte, slicesByPolicy bool) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	none := ptr.To(admissionregistrationv1.SideEffectClassNone)
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	createOrUpdate := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	rule := func(group, resource string, ops []admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"v1", "v1alpha1"}, Resources: []string{resource}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)}}}
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigurationName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "pod.placement.spillway.liqo.io", ClientConfig: o.clientConfig(pod.Path, ca), Rules: rule("", "pods", create),
			NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{offloadingv1alpha1.SchedulingEnabledLabel: "true"}},
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy),
			SideEffects:        none, TimeoutSeconds: ptr.To(int32(5)), AdmissionReviewVersions: []string{"v1"},
			MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ObjectSelector: &metav1.LabelSelector{},
		}}}
	twinRules := append(rule("", "services", createOrUpdate), append(rule("networking.k8s.io", "ingresses", createOrUpdate), rule("", "persistentvolumeclaims", createOrUpdate)...)...)
	if !slicesByPolicy {
		twinRules = append(twinRules, rule("discovery.k8s.io", "endpointslices", createOrUpdate)...)
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: ValidatingConfigurationName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "namespaceoffloading.spillway.liqo.io", ClientConfig: o.clientConfig(namespaceoffloading.Path, ca),
			Rules:         rule(offloadingv1alpha1.GroupVersion.Group, "namespaceoffloadings", []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}),
			FailurePolicy: ptr.To(admissionregistrationv1.Ignore), SideEffects: none, TimeoutSeconds: ptr.To(int32(5)), AdmissionReviewVersions: []string{"v1"},
			MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ObjectSelector: &metav1.LabelSelector{}, NamespaceSelector: &metav1.LabelSelector{},
		}, {
			Name: "shadowpod.spillway.liqo.io", ClientConfig: o.clientConfig(shadowpod.Path, ca),
			Rules: rule("virtualkubelet.liqo.io", "shadowpods", []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}),
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: sharingv1alpha1.TwinNamespaceLabel, Operator: metav1.LabelSelectorOpExists}}},
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: none, TimeoutSeconds: ptr.To(int32(5)), AdmissionReviewVersions: []string{"v1"},
			MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ObjectSelector: &metav1.LabelSelector{},
		}, {
			Name: "twinobjects.spillway.liqo.io", ClientConfig: o.clientConfig(twinobjects.Path, ca),
			Rules: twinRules,
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: sharingv1alpha1.TwinNamespaceLabel, Operator: metav1.LabelSelectorOpExists}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{twinobjects.ConsumersOnly()},
			FailurePolicy:   ptr.To(admissionregistrationv1.Fail), SideEffects: none, TimeoutSeconds: ptr.To(int32(5)), AdmissionReviewVersions: []string{"v1"},
			MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ObjectSelector: &metav1.LabelSelector{},
		}}}
	return mutating, validating
}
