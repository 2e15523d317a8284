package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/reflectors/configmap"
	"github.com/spillway-dev/spillway/reflectors/endpointslice"
	"github.com/spillway-dev/spillway/reflectors/ingress"
	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/secret"
	"github.com/spillway-dev/spillway/reflectors/service"
)

// reflectedKinds are the resources that follow an offloaded namespace's pods.
var reflectedKinds = []reflection.Kind{configmap.Kind, secret.Kind, service.Kind, endpointslice.Kind, ingress.Kind}

// reflectionFlags are the virtual kubelet's reflection settings, named as
// Liqo's: --<resource>-reflection-workers (0 disables the resource),
// networking.internal and reflectIPs.
type reflectionFlags struct {
	workers    map[string]*int
	resync     time.Duration
	internal   bool
	reflectIPs bool
}

func (f *reflectionFlags) bind(fs *flag.FlagSet) {
	f.workers = map[string]*int{}
	for _, k := range reflectedKinds {
		f.workers[k.Name] = fs.Int(k.Name+"-reflection-workers", reflection.DefaultWorkers,
			fmt.Sprintf("workers reflecting %ss to each peer; 0 disables %s reflection", k.Name, k.Name))
	}
	fs.DurationVar(&f.resync, "reflection-resync-period", reflection.DefaultResync, "how often reflected copies are realigned with their originals")
	fs.BoolVar(&f.internal, "networking-internal", network.DefaultMode.Internal,
		"Liqo's networking.internal: false when the pod networks already route to each other (no gateway; IPs reflected as they are)")
	fs.BoolVar(&f.reflectIPs, "reflect-ips", network.DefaultMode.ReflectIPs,
		"Liqo's networking.reflectIPs: false reflects no IPs (EndpointSlices are not populated)")
}

func (f *reflectionFlags) config(local reflection.Local) *reflection.Config {
	workers := map[string]int{}
	for name, n := range f.workers {
		workers[name] = *n
	}
	return &reflection.Config{Local: local, Kinds: reflectedKinds, Workers: workers, Resync: f.resync,
		Network: network.Mode{Internal: f.internal, ReflectIPs: f.reflectIPs}}
}
