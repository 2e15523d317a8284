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

// Command spillway-controller is the Spillway manager: it peers this cluster
// with providers (ForeignCluster), publishes this cluster's offers to consumers
// (ResourceOffer), and runs one virtual node per outgoing peering.
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/foreigncluster"
	"github.com/spillway-dev/spillway/controllers/namespaceoffloading"
	"github.com/spillway-dev/spillway/controllers/offloadedpod"
	"github.com/spillway-dev/spillway/controllers/resourceoffer"
	"github.com/spillway-dev/spillway/controllers/shadowpod"
	"github.com/spillway-dev/spillway/controllers/tenantnamespace"
	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/network/fabric"
	"github.com/spillway-dev/spillway/network/gateway"
	"github.com/spillway-dev/spillway/peering"
	"github.com/spillway-dev/spillway/peering/virtualnode"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
	"github.com/spillway-dev/spillway/webhooks"
)

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(discoveryv1alpha1.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	return s
}

type options struct {
	clusterID, clusterName, namespace, apiServerURL string
	metricsAddr, probeAddr, nodeAddress             string
	leaderElect                                     bool
	probeInterval                                   time.Duration
	failureThreshold                                int
	kubeletPort                                     int
	reservedNamespaces                              string
	reflection                                      reflectionFlags
	webhook                                         webhooks.Options
	fabric                                          fabricFlags
	storage                                         storageFlags
}

func (o options) validate() error {
	var errs []error
	if o.clusterID == "" {
		errs = append(errs, errors.New("--cluster-id is required: this cluster's identity, as providers' ResourceOffers name it in spec.clusterId"))
	}
	if o.clusterName == "" {
		errs = append(errs, errors.New("--cluster-name is required: used in virtual node and namespace names"))
	}
	if o.apiServerURL == "" {
		errs = append(errs, errors.New("--api-server-url is required: the URL consumers use to reach this cluster's API server"))
	}
	if _, err := o.reserved(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// reserved are the namespace names no consumer gets as a twin: the flag's
// list and the manager's own namespace, which is never the consumers' to take.
func (o options) reserved() (policies.ReservedNamespaces, error) {
	r, err := policies.ParseReservedNamespaces(o.reservedNamespaces)
	if err != nil {
		return r, err
	}
	return r.With(o.namespace), nil
}

func main() {
	var o options
	flag.StringVar(&o.clusterID, "cluster-id", "", "this cluster's ID")
	flag.StringVar(&o.clusterName, "cluster-name", "", "this cluster's name")
	flag.StringVar(&o.namespace, "namespace", "liqo", "namespace of the manager and of identity Secrets")
	flag.StringVar(&o.apiServerURL, "api-server-url", "", "URL consumers use to reach this cluster's API server")
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "metrics endpoint; 0 disables it")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "health probe endpoint")
	flag.StringVar(&o.nodeAddress, "virtual-node-address", envOr("POD_IP", "127.0.0.1"), "address virtual nodes advertise")
	flag.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader so that only one replica reconciles")
	flag.DurationVar(&o.probeInterval, "virtual-node-probe-interval", virtualnode.DefaultOptions.ProbeInterval, "how often a provider's API server is checked")
	flag.IntVar(&o.failureThreshold, "virtual-node-failure-threshold", virtualnode.DefaultOptions.FailureThreshold, "failed checks before a virtual node turns NotReady")
	flag.IntVar(&o.kubeletPort, "virtual-kubelet-port", 10250, "port of the virtual kubelet API (logs, exec) shared by all virtual nodes, on --virtual-node-address")
	flag.StringVar(&o.reservedNamespaces, "reserved-namespaces", policies.DefaultReservedNamespaces,
		"comma-separated namespace names (exact, or prefix*) this provider never creates as a consumer's twin; the manager's --namespace is always added")
	o.reflection.bind(flag.CommandLine)
	o.fabric.bind(flag.CommandLine)
	o.storage.bind(flag.CommandLine)
	flag.IntVar(&o.webhook.Port, "webhook-port", 9443, "HTTPS port of the admission webhooks; 0 disables them")
	flag.StringVar(&o.webhook.BindHost, "webhook-bind-host", "", "address the webhooks listen on (all when empty)")
	flag.StringVar(&o.webhook.CertDir, "webhook-cert-dir", filepath.Join(os.TempDir(), "spillway-webhook"), "where the serving certificate is written")
	flag.StringVar(&o.webhook.ServiceName, "webhook-service", "spillway-webhook", "Service in front of the manager that the API server dials")
	flag.StringVar(&o.webhook.URL, "webhook-url", "", "base URL the API server dials instead of the Service (a manager outside the cluster)")
	flag.StringVar(&o.webhook.SecretName, "webhook-secret", "spillway-webhook-tls", "Secret holding the webhook CA and serving certificate")
	flag.StringVar(&o.webhook.OwnerClusterRole, "webhook-owner-cluster-role", "spillway-controller", "ClusterRole of the install that owns the webhook configurations, so that pruning the install deletes them; empty: no owner")
	flag.DurationVar(&o.webhook.CheckInterval, "webhook-check-interval", time.Minute, "how often the webhook certificate is checked and the webhook configurations republished")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	if err := o.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "spillway-controller:", err)
		os.Exit(2)
	}
	limit, ok, err := collectorMemoryLimit(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spillway-controller:", err)
		os.Exit(2)
	}
	if ok {
		debug.SetMemoryLimit(limit)
		ctrl.Log.Info("the collector keeps the heap under the container's memory limit", "limitMiB", limit>>20, "from", envContainerMemoryLimit)
	}
	if err := run(ctrl.SetupSignalHandler(), o); err != nil {
		ctrl.Log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

// run serves the process-wide endpoints (probes, metrics, the virtual
// kubelet API) and supervises generations of the manager under them; see
// lifecycle.go for why a lost lease rebuilds the manager instead of exiting.
func run(ctx context.Context, o options) (err error) {
	cfg := ctrl.GetConfigOrDie()
	o.webhook.Namespace = o.namespace
	if o.webhook.ProviderRanges, err = providerRanges(o.fabric); err != nil {
		return err
	}
	local, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	p := process{cfg: cfg, o: o, local: local, fabric: &fabricSlot{}}
	if p.lifecycle, err = newLifecycle(ctrlmetrics.Registry); err != nil {
		return err
	}
	if p.peeringMetrics, err = peering.NewMetrics(ctrlmetrics.Registry); err != nil {
		return err
	}
	if err := ctrlmetrics.Registry.Register(gateway.NewFleetCollector(p.fabric.statuses)); err != nil {
		return err
	}
	if p.kubeletAPI, err = newKubeletAPI(cfg, local, o); err != nil {
		return err
	}
	if o.leaderElect {
		if p.lock, err = newLeaderLock(cfg, o.namespace); err != nil {
			return err
		}
	}
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	failed := make(chan error, 4)
	probeErr, err := serveProbes(serveCtx, o.probeAddr, p.lifecycle)
	if err != nil {
		return err
	}
	go func() { failed <- <-probeErr }()
	if err := serveMetrics(serveCtx, cfg, o.metricsAddr, failed); err != nil {
		return err
	}
	// One kubelet API for every generation: its port stays open while the
	// manager rebuilds, answering NotFound for nodes no generation runs.
	go func() {
		if err := p.kubeletAPI.Start(serveCtx); err != nil {
			failed <- err
		}
	}()
	ping := func(ctx context.Context) error {
		return local.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}
	supervised := make(chan error, 1)
	go func() { supervised <- supervise(serveCtx, p.lifecycle, ping, p.generation) }()
	select {
	case err := <-supervised:
		return err
	case err := <-failed:
		stopServing()
		// The serving failure is the cause; the supervisor only ends because of it.
		if serr := <-supervised; serr != nil && !errors.Is(serr, context.Canceled) {
			ctrl.Log.Error(serr, "manager supervisor stopped after a serving failure")
		}
		return err
	}
}

// process is what outlives each generation of the manager.
type process struct {
	cfg            *rest.Config
	o              options
	local          kubernetes.Interface
	lifecycle      *lifecycle
	peeringMetrics *peering.Metrics
	kubeletAPI     *virtualnode.APIServer
	fabric         *fabricSlot
	// lock is the leader lease with this process's identity, the same in
	// every generation: a generation after an outage finds the lease still
	// naming this process and takes it back at once, instead of waiting a
	// lease duration as a stranger would.
	lock resourcelock.Interface
}

// generation builds one manager, its peering runtime and controllers, with
// fresh caches. ctx ends with the generation.
func (p process) generation(ctx context.Context) (*generation, error) {
	cfg, o := p.cfg, p.o
	stop := &stopWaiter{}
	var webhookServer webhook.Server
	if o.webhook.Port > 0 {
		webhookServer = trackedWebhookServer{Server: o.webhook.Server(), w: stop}
	}
	podVersions := &virtualnode.PodVersions{}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:         managerCacheOptions(podVersions),
		WebhookServer: webhookServer,
		Scheme:        newScheme(),
		// Served by the process (run), across generations.
		Metrics:                             metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:              "0",
		LeaderElection:                      o.leaderElect,
		LeaderElectionID:                    leaderElectionID,
		LeaderElectionNamespace:             o.namespace,
		LeaderElectionResourceLockInterface: p.lock,
		// Each generation registers the same controllers again.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, err
	}
	// Virtual-kubelet works from the manager's informer of every local pod,
	// filtered to each node, so no pod is cached twice (issue 17, lever 6).
	localPods, err := localPodInformer(ctx, mgr)
	if err != nil {
		return nil, err
	}
	podVersions.Hold(localPods.GetStore())
	peers := &remote.Registry{}
	// One registry of pod CIDR remaps: the fabric fills it, pod status and
	// the reflectors read it.
	remaps := network.NewRegistry()
	fab, err := newFabric(cfg, mgr, o, remaps, stop)
	if err != nil {
		return nil, err
	}
	p.fabric.set(fab)
	rt, err := peering.New(peering.Options{Local: p.local, LocalClient: mgr.GetClient(), LocalClusterID: o.clusterID, Peers: peers,
		Reflection: o.reflection.config(mgr, remaps), APIServerURL: o.reflection.apiServerFor(o.apiServerURL),
		NodeAddress: o.nodeAddress, NodePort: int32(o.kubeletPort), NodeOptions: virtualnode.Options{ProbeInterval: o.probeInterval,
			FailureThreshold: o.failureThreshold, LeaseDurationSeconds: virtualnode.DefaultOptions.LeaseDurationSeconds, API: p.kubeletAPI,
			LocalPods: localPods},
		Network: remaps, Metrics: p.peeringMetrics, ForeignClusters: mgr.GetCache()})
	if err != nil {
		return nil, err
	}
	// The next generation runs the same virtual nodes: it waits for this
	// runtime to have stopped every session.
	if err := mgr.Add(stop.track(rt)); err != nil {
		return nil, err
	}
	if err := setupControllers(ctx, mgr, o, fab, rt, peers); err != nil {
		return nil, err
	}
	if o.webhook.Port > 0 {
		direct, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme()})
		if err != nil {
			return nil, err
		}
		if err := webhooks.Register(ctx, mgr, direct, o.webhook); err != nil {
			return nil, err
		}
	}
	return &generation{mgr: mgr, stop: stop}, nil
}

func setupControllers(ctx context.Context, mgr ctrl.Manager, o options, fab *fabric.Fabric, rt *peering.Runtime, peers *remote.Registry) error {
	fcr := &foreigncluster.ForeignClusterReconciler{Fabric: fab, Client: mgr.GetClient(), LocalClusterID: o.clusterID, Runtime: rt}
	if err := fcr.SetupWithManager(ctx, mgr); err != nil {
		return fmt.Errorf("setting up the ForeignCluster controller: %w", err)
	}
	ror := &resourceoffer.ResourceOfferReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), LocalClusterID: o.clusterID,
		LocalClusterName: o.clusterName, APIServerURL: o.apiServerURL, Namespace: o.namespace, Fabric: fab}
	if err := ror.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ResourceOffer controller: %w", err)
	}
	nor := &namespaceoffloading.NamespaceOffloadingReconciler{Client: mgr.GetClient(), LocalClusterID: o.clusterID, LocalClusterName: o.clusterName, Peers: peers,
		ManagerNamespace: o.namespace}
	if err := nor.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the NamespaceOffloading controller: %w", err)
	}
	reserved, err := o.reserved()
	if err != nil {
		return err
	}
	tnr := &tenantnamespace.TwinNamespaceReconciler{Client: mgr.GetClient(), LocalClusterName: o.clusterName, Reserved: reserved}
	if err := tnr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the twin namespace controller: %w", err)
	}
	if err := (&shadowpod.ShadowPodReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ShadowPod controller: %w", err)
	}
	// The NotReady policy of pods on virtual nodes (docs/faults.md).
	if err := (&offloadedpod.OffloadedPodReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the offloaded pod controller: %w", err)
	}
	return o.storage.setup(mgr, peers, o.clusterID)
}

// leaderElectionID is the name of the manager's lease in its namespace.
const leaderElectionID = "spillway-controller.liqo.io"

// newLeaderLock is the lease lock with this process's identity (host name and
// a UUID, as controller-runtime makes it), kept for the process's life.
func newLeaderLock(cfg *rest.Config, namespace string) (resourcelock.Interface, error) {
	host, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	lcfg := rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election")
	// Below the renew deadline (controller-runtime's 10 s), so one hung
	// request cannot cost the lease, as controller-runtime sets it.
	lcfg.Timeout = 5 * time.Second
	cs, err := kubernetes.NewForConfig(lcfg)
	if err != nil {
		return nil, err
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, namespace, leaderElectionID, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())})
}

// serveMetrics serves controller-runtime's registry on addr until ctx ends
// ("0": not at all); a failure to serve is sent on failed.
func serveMetrics(ctx context.Context, cfg *rest.Config, addr string, failed chan<- error) error {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	srv, err := metricsserver.NewServer(metricsserver.Options{BindAddress: addr}, cfg, httpClient)
	if err != nil || srv == nil {
		return err
	}
	go func() {
		if err := srv.Start(ctx); err != nil {
			failed <- fmt.Errorf("metrics on %s (--metrics-bind-address): %w", addr, err)
		}
	}()
	return nil
}

// newFabric starts the network fabric when --gateway-address is set: its
// gateways run while this manager leads, and their metrics join the
// manager's (fabricSlot). It returns nil (no fabric) otherwise.
func newFabric(cfg *rest.Config, mgr ctrl.Manager, o options, remaps *network.Registry, stop *stopWaiter) (*fabric.Fabric, error) {
	fc, enabled, err := o.fabric.config(o.clusterID, o.namespace, slog.Default())
	if err != nil || !enabled {
		return nil, err
	}
	if !o.reflection.internal {
		return nil, fmt.Errorf("--gateway-address %s runs gateways but --networking-internal=false says the clusters' pod networks are joined by something else: drop one of the two", o.fabric.address)
	}
	// Key Secrets are read right after they are created: no cache.
	direct, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return nil, err
	}
	fc.Registry = remaps
	fab, err := fabric.New(fc, direct)
	if err != nil {
		return nil, err
	}
	// The next generation's gateways take the same ports and names.
	if err := mgr.Add(stop.track(fab)); err != nil {
		return nil, err
	}
	return fab, nil
}

// newKubeletAPI is the kubelet API of this manager's virtual nodes. Callers
// must present a client certificate from the cluster's CA (the one in the
// manager's own kubeconfig), as the API server's --kubelet-client-certificate is.
func newKubeletAPI(cfg *rest.Config, local kubernetes.Interface, o options) (*virtualnode.APIServer, error) {
	caPEM := cfg.CAData
	if len(caPEM) == 0 && cfg.CAFile != "" {
		var err error
		if caPEM, err = os.ReadFile(cfg.CAFile); err != nil {
			return nil, fmt.Errorf("reading the cluster CA %s for the virtual kubelet API: %w", cfg.CAFile, err)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the virtual kubelet API needs the cluster CA to verify the API server's kubelet client certificate: the manager's kubeconfig has none (set certificate-authority)")
	}
	return &virtualnode.APIServer{Addr: net.JoinHostPort(o.nodeAddress, strconv.Itoa(o.kubeletPort)), Local: local,
		ClientCAs: pool, Hosts: []string{o.nodeAddress}}, nil
}

// providerRanges are this cluster's networks as far as the flags tell them
// (--pod-cidr, --service-cidr, --node-cidrs, --reserved-subnets), set with or
// without a gateway: no endpoint a consumer writes into a twin may point there.
func providerRanges(f fabricFlags) ([]netip.Prefix, error) {
	var ranges []netip.Prefix
	for _, list := range []struct{ flag, value string }{{"--reserved-subnets", f.reserved}, {"--service-cidr", f.serviceCIDRs},
		{"--node-cidrs", f.nodeCIDRs}} {
		parsed, err := parseCIDRList(list.flag, list.value)
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, parsed...)
	}
	pod, err := parseCIDR("--pod-cidr", f.podCIDR, false)
	if err != nil || !pod.IsValid() {
		return ranges, err
	}
	return append(ranges, pod), nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// localPodInformer is the manager's informer of every local pod, which its
// controllers and reflectors watch anyway; the virtual nodes share it
// (virtualnode.Options.LocalPods). Before the manager starts it is only
// registered; the sessions using it start once the caches have synced.
func localPodInformer(ctx context.Context, mgr ctrl.Manager) (toolscache.SharedIndexInformer, error) {
	inf, err := mgr.GetCache().GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		return nil, fmt.Errorf("the manager's informer of local pods: %w", err)
	}
	shared, ok := inf.(toolscache.SharedIndexInformer)
	if !ok {
		return nil, fmt.Errorf("the manager's informer of local pods is a %T, not a client-go SharedIndexInformer", inf)
	}
	return shared, nil
}
