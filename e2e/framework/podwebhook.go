package framework

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

// PodWebhookStandInName is the MutatingWebhookConfiguration of the stand-in.
const PodWebhookStandInName = "spillway-e2e-pod-placement-standin"

// podWebhookPort is the extra port the stand-in listens on; the last of the
// block, away from the manager's.
const podWebhookPort = 13

// StartPodWebhookStandIn serves, from the test process, a mutating webhook
// that stands in for Spillway's pod webhook (issue 5, not in the manager yet):
// in a namespace labelled liqo.io/scheduling-enabled=true it adds to each new
// pod the toleration and required node affinity that the namespace's
// NamespaceOffloading allows (policies.PlacementFor, merged with the pod's
// own terms). A pod created before its NamespaceOffloading exists is refused,
// so its ReplicaSet retries instead of leaving a pod that was never placed.
// The returned stop removes the configuration and the server.
func StartPodWebhookStandIn(ctx context.Context, c *lab.Cluster) (stop func(context.Context) error, err error) {
	cl, err := Client(c)
	if err != nil {
		return nil, err
	}
	port, err := c.ExtraPort(podWebhookPort)
	if err != nil {
		return nil, err
	}
	ca, err := lab.NewCA(c.Name + "-webhook")
	if err != nil {
		return nil, err
	}
	kp, err := ca.Sign(lab.CertRequest{CommonName: "127.0.0.1", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, Server: true})
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		return nil, err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, fmt.Errorf("pod webhook stand-in for %s: %w", c.Name, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { servePodPlacement(w, r, cl) })}
	go func() { _ = srv.Serve(ln) }()

	cfg := podWebhookConfiguration("https://127.0.0.1:"+strconv.Itoa(port)+"/mutate-pod", ca.CertPEM())
	if err := cl.Create(ctx, cfg); err != nil && !apierrors.IsAlreadyExists(err) {
		_ = srv.Close()
		return nil, fmt.Errorf("registering the pod webhook stand-in on %s: %w", c.Name, err)
	}
	return func(ctx context.Context) error {
		return errors.Join(client.IgnoreNotFound(cl.Delete(ctx, cfg)), srv.Close())
	}, nil
}

func podWebhookConfiguration(url string, caBundle []byte) *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: PodWebhookStandInName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "pods.standin.e2e.spillway.liqo.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
				offloadingv1alpha1.SchedulingEnabledLabel: offloadingv1alpha1.SchedulingEnabledValue}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

func servePodPlacement(w http.ResponseWriter, r *http.Request, cl client.Client) {
	body, err := io.ReadAll(r.Body)
	review := &admissionv1.AdmissionReview{}
	if err == nil {
		err = json.Unmarshal(body, review)
	}
	if err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	review.Response = placePod(r.Context(), cl, review.Request)
	review.Response.UID = review.Request.UID
	out, _ := json.Marshal(review)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// placePod answers one admission request.
func placePod(ctx context.Context, cl client.Client, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	deny := func(code int32, format string, args ...any) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: code, Message: fmt.Sprintf(format, args...)}}
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(req.Object.Raw, pod); err != nil {
		return deny(http.StatusBadRequest, "decoding the pod: %v", err)
	}
	no := &offloadingv1alpha1.NamespaceOffloading{}
	err := cl.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: offloadingv1alpha1.RequiredName}, no)
	if apierrors.IsNotFound(err) {
		return deny(http.StatusServiceUnavailable, "namespace %s is labelled %s but has no NamespaceOffloading %q yet: the pod is refused until it is applied, so it is placed as the offloading says",
			req.Namespace, offloadingv1alpha1.SchedulingEnabledLabel, offloadingv1alpha1.RequiredName)
	}
	if err != nil {
		return deny(http.StatusInternalServerError, "reading NamespaceOffloading %s/%s: %v", req.Namespace, offloadingv1alpha1.RequiredName, err)
	}
	p := policies.PlacementFor(no.Spec.PodOffloadingStrategy, no.Spec.ClusterSelector)
	tolerations := append([]corev1.Toleration{}, pod.Spec.Tolerations...)
	tolerations = append(tolerations, p.Tolerations...)
	affinity := pod.Spec.Affinity.DeepCopy()
	if affinity == nil {
		affinity = &corev1.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	var own []corev1.NodeSelectorTerm
	if r := affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		own = r.NodeSelectorTerms
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{
		NodeSelectorTerms: policies.MergeRequiredTerms(own, p.NodeSelectorTerms)}
	patch, err := json.Marshal([]map[string]any{
		{"op": "add", "path": "/spec/tolerations", "value": tolerations},
		{"op": "add", "path": "/spec/affinity", "value": affinity},
	})
	if err != nil {
		return deny(http.StatusInternalServerError, "encoding the patch: %v", err)
	}
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: ptr.To(admissionv1.PatchTypeJSONPatch)}
}
