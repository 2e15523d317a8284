package foreigncluster

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	podreflector "github.com/spillway-dev/spillway/reflectors/pod"
	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/virtualnode"
)

// remoteScheme is what the consumer writes on a provider.
var remoteScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	return s
}()

// pendingRetry is how often pods waiting for their namespace are retried.
const pendingRetry = 3 * time.Second

// orphanSweep is how often ShadowPods whose local pod vanished are collected.
const orphanSweep = 10 * time.Second

// podHandler builds the pod side of a peering's virtual kubelet.
func (r *ForeignClusterReconciler) podHandler(fc *discoveryv1alpha1.ForeignCluster, pe *peer, provider kubernetes.Interface) (*podreflector.Handler, error) {
	cfg := pe.config
	remoteClient, err := client.New(cfg, client.Options{Scheme: remoteScheme})
	if err != nil {
		return nil, err
	}
	pe.twins = &podreflector.TwinWatcher{Provider: provider, LocalClusterID: r.LocalClusterID}
	h := &podreflector.Handler{
		Remote: remoteClient, Twins: pe.twins, LocalClusterID: r.LocalClusterID, RemoteID: fc.Spec.ClusterIdentity.ClusterID, NodeIP: r.NodeAddress,
		RemoteConfig: cfg, ClusterName: clusterName(fc), APIServerURL: r.APIServerURL, LocalPods: r.Client,
		Namespaces: podreflector.OffloadingMapper(r.Client, clusterName(fc), fc.Spec.ClusterIdentity.ClusterID),
	}
	ctx, cancel := context.WithCancel(context.Background())
	pe.cancelPods = cancel
	go h.RetryPending(ctx, pendingRetry)
	go h.CollectOrphans(ctx, r.Client, r.Local.CoreV1(), orphanSweep)
	if r.Reflection != nil {
		// The rest of each offloaded namespace follows its pods.
		set, err := r.Reflection.Start(ctx, reflection.Peer{LocalClusterID: r.LocalClusterID, RemoteClusterID: fc.Spec.ClusterIdentity.ClusterID,
			RemoteClusterName: clusterName(fc), NodeName: virtualnode.Name(clusterName(fc)), Remote: remoteClient, Provider: provider,
			Namespaces: reflection.NamespaceMapper(h.Namespaces)})
		if err != nil {
			cancel()
			return nil, err
		}
		pe.reflection = set
	}
	return h, nil
}
