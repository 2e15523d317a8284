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

package v1alpha1_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	. "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/api/internal/crdtest"
)

const crdFile = "discovery.liqo.io_foreignclusters.yaml"

// The helpers the controller relies on (conditions.MarkTrue, IsReady, ...)
// need these interfaces; a compile error here means the contract broke.
var (
	_ conditions.Setter = &ForeignCluster{}
	_ conditions.Getter = &ForeignCluster{}
)

func admission(g *WithT) *crdtest.Admission {
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	a, err := crdtest.NewAdmission(crd, "v1alpha1")
	g.Expect(err).NotTo(HaveOccurred())
	return a
}

func TestCRDNamesAndScope(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())

	g.Expect(crd.Name).To(Equal("foreignclusters.discovery.liqo.io"))
	g.Expect(crd.Spec.Group).To(Equal(GroupVersion.Group))
	g.Expect(string(crd.Spec.Scope)).To(Equal("Cluster"))
	g.Expect(crd.Spec.Names.Kind).To(Equal("ForeignCluster"))
	g.Expect(crd.Spec.Names.ShortNames).To(Equal([]string{"fc"}))
	v := crdtest.Version(crd, GroupVersion.Version)
	g.Expect(v).NotTo(BeNil())
	g.Expect(v.Served && v.Storage).To(BeTrue())
	g.Expect(v.Subresources).NotTo(BeNil())
	g.Expect(v.Subresources.Status).NotTo(BeNil())
}

// kubectl get foreignclusters must print
// NAME TYPE OUTGOING PEERING INCOMING PEERING NETWORKING AUTHENTICATION AGE,
// with READY only in -o wide.
func TestPrinterColumns(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())

	g.Expect(crdtest.Columns(crdtest.Version(crd, "v1alpha1"))).To(Equal([]crdtest.Column{
		{Name: "Type", JSONPath: ".spec.peeringType"},
		{Name: "Outgoing Peering", JSONPath: `.status.peeringConditions[?(@.type=="OutgoingPeering")].status`},
		{Name: "Incoming Peering", JSONPath: `.status.peeringConditions[?(@.type=="IncomingPeering")].status`},
		{Name: "Networking", JSONPath: `.status.peeringConditions[?(@.type=="NetworkStatus")].status`},
		{Name: "Authentication", JSONPath: `.status.peeringConditions[?(@.type=="AuthenticationStatus")].status`},
		{Name: "Age", JSONPath: ".metadata.creationTimestamp"},
		{Name: "Ready", JSONPath: `.status.conditions[?(@.type=="Ready")].status`, Priority: 1},
	}))
}

func TestCRDIsInSyncWithGoTypes(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	schema := crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema
	g.Expect(crdtest.MissingFields(reflect.TypeOf(ForeignCluster{}), schema)).To(BeEmpty())
}

func TestCELRulesArePresent(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	rules := crdtest.Rules(crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema)

	g.Expect(rules).To(HaveKey("spec.clusterIdentity.clusterID"))
	g.Expect(rules["spec.clusterIdentity.clusterID"][0].Rule).To(Equal("self == oldSelf"))
	g.Expect(rules["spec.clusterIdentity.clusterID"][0].Message).To(ContainSubstring("immutable"))
	g.Expect(rules).To(HaveKey("spec.peeringType"))
	g.Expect(rules).To(HaveKey("spec.incomingPeeringEnabled"))
	g.Expect(rules).To(HaveKey("spec.insecureSkipTLSVerify"))
	g.Expect(rules).To(HaveKey("spec.interval"))
	g.Expect(rules).To(HaveKey("spec.foreignAuthUrl"))
	g.Expect(rules).To(HaveKey("spec.foreignProxyUrl"))
}

// A freshly created object must carry observedGeneration -1 so kstatus does
// not call it Current before the controller has looked at it.
func TestStatusDefaultsToObservedGenerationMinusOne(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	status := crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema.Properties["status"]
	g.Expect(status.Default).NotTo(BeNil())
	g.Expect(string(status.Default.Raw)).To(MatchJSON(`{"observedGeneration":-1}`))

	obj := crdtest.MustDecode(`
apiVersion: discovery.liqo.io/v1alpha1
kind: ForeignCluster
metadata: {name: homelab}
spec:
  clusterIdentity: {clusterID: homelab-cluster-id}
  credentialsSecretRef: {name: homelab-kubeconfig}
`)
	admission(g).Default(obj)
	g.Expect(obj).To(HaveKeyWithValue("status", HaveKeyWithValue("observedGeneration", BeNumerically("==", -1))))
	g.Expect(obj["spec"]).To(And(
		HaveKeyWithValue("outgoingPeeringEnabled", "Auto"),
		HaveKeyWithValue("incomingPeeringEnabled", "Auto"),
		HaveKeyWithValue("peeringType", "OutOfBand"),
		HaveKeyWithValue("networkingEnabled", "Yes"),
		HaveKeyWithValue("interval", "10s"),
		HaveKeyWithValue("credentialsSecretRef", HaveKeyWithValue("namespace", "liqo")),
	))
}

func TestAdmissionOnCreate(t *testing.T) {
	base := "apiVersion: discovery.liqo.io/v1alpha1\nkind: ForeignCluster\nmetadata: {name: peer}\n"
	cases := []struct {
		name    string
		spec    string
		wantErr string // empty means accepted
	}{
		{name: "minimal", spec: "spec: {clusterIdentity: {clusterID: abc}}"},
		{name: "liqo style", spec: `spec:
  clusterIdentity: {clusterID: 7d5c9f1e, clusterName: remote}
  outgoingPeeringEnabled: "Yes"
  incomingPeeringEnabled: "No"
  peeringType: OutOfBand
  networkingEnabled: "Yes"
  insecureSkipTLSVerify: false
  foreignAuthUrl: https://203.0.113.10:30443
  foreignProxyUrl: http://203.0.113.10:8118`},
		{name: "liqo defaults spelled out", spec: "spec: {clusterIdentity: {clusterID: a}, incomingPeeringEnabled: Auto, peeringType: OutOfBand}"},
		{name: "in-band is not implemented", spec: "spec: {clusterIdentity: {clusterID: a}, peeringType: InBand}", wantErr: "spec.peeringType InBand (API servers reached through the network fabric) is not implemented: only OutOfBand is"},
		{name: "in-band without networking", spec: "spec: {clusterIdentity: {clusterID: a}, peeringType: InBand, networkingEnabled: \"No\"}", wantErr: "only OutOfBand is"},
		{name: "skipping TLS verification is refused", spec: "spec: {clusterIdentity: {clusterID: a}, insecureSkipTLSVerify: true}", wantErr: "Spillway always verifies the provider's API server certificate. Put the provider's CA in the credentials Secret"},
		{name: "incoming peering is a ResourceOffer", spec: "spec: {clusterIdentity: {clusterID: a}, incomingPeeringEnabled: \"Yes\"}", wantErr: "holds a ResourceOffer for it"},
		{name: "incoming peering off", spec: "spec: {clusterIdentity: {clusterID: a}, incomingPeeringEnabled: \"No\"}"},
		{name: "outgoing peering yes is still fine", spec: "spec: {clusterIdentity: {clusterID: a}, outgoingPeeringEnabled: \"Yes\"}"},
		{name: "missing spec", spec: "", wantErr: "spec: Required"},
		{name: "missing identity", spec: "spec: {suspend: true}", wantErr: "spec.clusterIdentity: Required"},
		{name: "empty cluster ID", spec: "spec: {clusterIdentity: {clusterID: \"\"}}", wantErr: "spec.clusterIdentity.clusterID"},
		{name: "bad peering enum", spec: "spec: {clusterIdentity: {clusterID: a}, outgoingPeeringEnabled: Maybe}", wantErr: "spec.outgoingPeeringEnabled: Unsupported value"},
		{name: "bad peering type", spec: "spec: {clusterIdentity: {clusterID: a}, peeringType: Sideways}", wantErr: "spec.peeringType: Unsupported value"},
		{name: "interval too short", spec: "spec: {clusterIdentity: {clusterID: a}, interval: 500ms}", wantErr: "spec.interval must be at least 1s"},
		{name: "interval not a duration", spec: "spec: {clusterIdentity: {clusterID: a}, interval: soon}", wantErr: "spec.interval"},
		{name: "interval ok", spec: "spec: {clusterIdentity: {clusterID: a}, interval: 1m30s}"},
		{name: "auth url not a url", spec: "spec: {clusterIdentity: {clusterID: a}, foreignAuthUrl: not a url}", wantErr: "spec.foreignAuthUrl must be an absolute URL"},
		{name: "secret ref without name", spec: "spec: {clusterIdentity: {clusterID: a}, credentialsSecretRef: {namespace: liqo}}", wantErr: "spec.credentialsSecretRef.name: Required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := admission(g).Validate(crdtest.MustDecode(base+tc.spec), nil)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty())
				return
			}
			g.Expect(errs.ToAggregate()).To(MatchError(ContainSubstring(tc.wantErr)))
		})
	}
}

// A malformed interval is reported once, by the pattern, rather than a
// second time as a CEL type-conversion error.
func TestMalformedIntervalYieldsOneError(t *testing.T) {
	g := NewWithT(t)
	errs := admission(g).Validate(crdtest.MustDecode(`
apiVersion: discovery.liqo.io/v1alpha1
kind: ForeignCluster
metadata: {name: peer}
spec: {clusterIdentity: {clusterID: a}, interval: soon}`), nil)
	g.Expect(errs).To(HaveLen(1))
	g.Expect(errs[0].Error()).To(ContainSubstring("should match"))
}

func TestClusterIDIsImmutable(t *testing.T) {
	g := NewWithT(t)
	a := admission(g)
	manifest := func(id, outgoing string) map[string]any {
		return crdtest.MustDecode(`
apiVersion: discovery.liqo.io/v1alpha1
kind: ForeignCluster
metadata: {name: peer}
spec: {clusterIdentity: {clusterID: ` + id + `}, outgoingPeeringEnabled: "` + outgoing + `"}`)
	}

	g.Expect(a.Validate(manifest("a", "No"), manifest("a", "Yes"))).To(BeEmpty())
	g.Expect(a.Validate(manifest("b", "Yes"), manifest("a", "Yes")).ToAggregate()).
		To(MatchError(ContainSubstring("spec.clusterIdentity.clusterID is immutable")))
}

// A Liqo-style manifest decodes into the Go type without unknown fields.
func TestManifestDecodesIntoGoType(t *testing.T) {
	g := NewWithT(t)
	fc := &ForeignCluster{}
	g.Expect(yaml.UnmarshalStrict([]byte(`
apiVersion: discovery.liqo.io/v1alpha1
kind: ForeignCluster
metadata: {name: homelab}
spec:
  clusterIdentity: {clusterID: homelab-cluster-id, clusterName: homelab}
  outgoingPeeringEnabled: "Yes"
  incomingPeeringEnabled: "No"
  peeringType: OutOfBand
  networkingEnabled: "No"
  insecureSkipTLSVerify: false
  foreignAuthUrl: https://192.0.2.1:443
  credentialsSecretRef: {name: homelab-kubeconfig, namespace: liqo}
  interval: 30s
status:
  peeringConditions:
  - {type: OutgoingPeering, status: Established, reason: PeeringEstablished}
  tenantNamespace: {local: liqo-tenant-homelab, remote: liqo-tenant-me}
  virtualNodeName: liqo-homelab
`), fc)).To(Succeed())

	g.Expect(fc.Spec.ClusterIdentity.ClusterID).To(Equal("homelab-cluster-id"))
	g.Expect(fc.Spec.OutgoingPeeringEnabled).To(Equal(PeeringEnabledYes))
	g.Expect(fc.Spec.IncomingPeeringEnabled).To(Equal(PeeringEnabledNo))
	g.Expect(fc.Spec.NetworkingEnabled).To(Equal(NetworkingEnabledNo))
	g.Expect(fc.Spec.InsecureSkipTLSVerify).To(Equal(ptr.To(false)))
	g.Expect(fc.GetRequeueAfter()).To(Equal(30 * time.Second))
	g.Expect(fc.CredentialsNamespace()).To(Equal("liqo"))
	g.Expect(fc.PeeringStatus(OutgoingPeeringCondition)).To(Equal(PeeringConditionStatusEstablished))
	g.Expect(fc.Status.TenantNamespace.Remote).To(Equal("liqo-tenant-me"))
}

func TestGoDefaultsMatchSchemaDefaults(t *testing.T) {
	g := NewWithT(t)
	fc := &ForeignCluster{}
	g.Expect(fc.GetRequeueAfter()).To(Equal(DefaultInterval))
	g.Expect(DefaultInterval).To(Equal(10 * time.Second))
	g.Expect(fc.CredentialsNamespace()).To(Equal(DefaultCredentialsNamespace))
	fc.Spec.CredentialsSecretRef = &SecretReference{Name: "x", Namespace: "vault"}
	g.Expect(fc.CredentialsNamespace()).To(Equal("vault"))
	fc.Spec.Interval = &metav1.Duration{Duration: 0}
	g.Expect(fc.GetRequeueAfter()).To(Equal(DefaultInterval))

	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	spec := crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema.Properties["spec"]
	var schemaInterval string
	g.Expect(json.Unmarshal(spec.Properties["interval"].Default.Raw, &schemaInterval)).To(Succeed())
	g.Expect(time.ParseDuration(schemaInterval)).To(Equal(DefaultInterval))
	var schemaNamespace string
	g.Expect(json.Unmarshal(spec.Properties["credentialsSecretRef"].Properties["namespace"].Default.Raw, &schemaNamespace)).To(Succeed())
	g.Expect(schemaNamespace).To(Equal(DefaultCredentialsNamespace))
}

func TestPeeringConditions(t *testing.T) {
	g := NewWithT(t)
	fc := &ForeignCluster{}
	g.Expect(fc.PeeringStatus(NetworkStatusCondition)).To(Equal(PeeringConditionStatusNone))

	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	t2 := metav1.NewTime(t0.Add(2 * time.Minute))

	fc.SetPeeringCondition(NetworkStatusCondition, PeeringConditionStatusPending, "Connecting", "", t0)
	fc.SetPeeringCondition(NetworkStatusCondition, PeeringConditionStatusPending, "Connecting", "still", t1)
	c := fc.GetPeeringCondition(NetworkStatusCondition)
	g.Expect(c.LastTransitionTime).To(Equal(t0), "same status must keep the transition time")
	g.Expect(c.Message).To(Equal("still"))

	fc.SetPeeringCondition(NetworkStatusCondition, PeeringConditionStatusEstablished, "Connected", "", t2)
	g.Expect(fc.GetPeeringCondition(NetworkStatusCondition).LastTransitionTime).To(Equal(t2))
	g.Expect(fc.Status.PeeringConditions).To(HaveLen(1))
}

func TestFluxConditionsHelpersWork(t *testing.T) {
	g := NewWithT(t)
	fc := &ForeignCluster{}
	conditions.MarkFalse(fc, ReadyCondition, CredentialsNotFoundReason, "secret %s missing", "liqo/x")
	g.Expect(conditions.IsReady(fc)).To(BeFalse())
	conditions.MarkTrue(fc, ReadyCondition, PeeringEstablishedReason, "ok")
	g.Expect(conditions.IsReady(fc)).To(BeTrue())
	g.Expect(fc.Status.Conditions).To(HaveLen(1))
}

func TestSchemeAndDeepCopy(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	g.Expect(AddToScheme(s)).To(Succeed())
	gvks, _, err := s.ObjectKinds(&ForeignCluster{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(gvks).To(ConsistOf(GroupVersion.WithKind("ForeignCluster")))
	g.Expect(s.Recognizes(GroupVersion.WithKind("ForeignClusterList"))).To(BeTrue())

	orig := &ForeignCluster{Spec: ForeignClusterSpec{
		CredentialsSecretRef: &SecretReference{Name: "a"},
		Interval:             &metav1.Duration{Duration: time.Second},
	}}
	orig.Status.PeeringConditions = []PeeringCondition{{Type: OutgoingPeeringCondition}}
	cp := orig.DeepCopyObject().(*ForeignCluster)
	cp.Spec.CredentialsSecretRef.Name = "b"
	cp.Spec.Interval.Duration = time.Hour
	cp.Status.PeeringConditions[0].Status = PeeringConditionStatusError
	g.Expect(orig.Spec.CredentialsSecretRef.Name).To(Equal("a"))
	g.Expect(orig.Spec.Interval.Duration).To(Equal(time.Second))
	g.Expect(orig.Status.PeeringConditions[0].Status).To(BeEmpty())
}

// Every ForeignCluster the fleet in clusters/ commits is admitted: the rules
// refusing Liqo values Spillway does not implement leave Liqo's defaults alone.
func TestFleetForeignClustersAreAdmitted(t *testing.T) {
	g := NewWithT(t)
	files, err := filepath.Glob(filepath.Join(crdtest.BasesDir(), "..", "..", "..", "clusters", "*", "config", "foreigncluster-*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).NotTo(BeEmpty())
	a := admission(g)
	for _, f := range files {
		data, err := os.ReadFile(f)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(a.Validate(crdtest.MustDecode(string(data)), nil)).To(BeEmpty(), f)
	}
}
