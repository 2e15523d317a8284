package foreigncluster

import (
	"context"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	podreflector "github.com/spillway-dev/spillway/reflectors/pod"
	"github.com/spillway-dev/spillway/reflectors/reflection"

	"github.com/spillway-dev/spillway/reflectors/virtualnode"
)

// peer is the live side of one ForeignCluster: a client for the provider and
// the runner of its virtual node. It lives as long as the peering, across
// reconciles; credentials with a new fingerprint replace the client in place,
// so a rotation never recreates the node.
type peer struct {
	fingerprint string
	remote      kubernetes.Interface
	config      *rest.Config
	runner      *virtualnode.Runner
	twins       *podreflector.TwinWatcher
	cancelPods  context.CancelFunc
	reflection  *reflection.Set
}

// stopPods ends the pod side: the retry loop and the provider watches.
func (pe *peer) stopPods() {
	if pe.cancelPods != nil {
		pe.cancelPods()
	}
	if pe.twins != nil {
		pe.twins.Stop()
	}
	pe.reflection.Stop()
	pe.reflection = nil
}

// peers is the registry of live peerings, keyed by ForeignCluster name.
type peers struct {
	mu sync.Mutex
	m  map[string]*peer
}

func (p *peers) get(name string) *peer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[name]
}

func (p *peers) set(name string, pe *peer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*peer{}
	}
	p.m[name] = pe
}

// stop ends the peer's heartbeating and forgets it.
func (p *peers) stop(name string) {
	p.mu.Lock()
	pe := p.m[name]
	delete(p.m, name)
	p.mu.Unlock()
	if pe != nil && pe.runner != nil {
		pe.runner.Stop()
	}
	if pe != nil {
		pe.stopPods()
	}
}

// readyzProbe checks the provider's API server with the peering's identity.
func readyzProbe(cs kubernetes.Interface) virtualnode.Probe {
	return func(ctx context.Context) error {
		return cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}
}
