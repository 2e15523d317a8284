// Command kubebin is one binary that runs the upstream Kubernetes control
// plane components and etcd, chosen by the name it is invoked under (or by its
// first argument). The lab links kube-apiserver, kube-controller-manager,
// kube-scheduler, kubectl and etcd to it so that a single cached build serves
// every cluster; building them from upstream sources keeps the lab free of
// downloaded binaries.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	kubectl "k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

const usage = "usage: kubebin {etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubectl} [flags]"

func main() {
	name, args := filepath.Base(os.Args[0]), os.Args[1:]
	if name == "kubebin" {
		if len(args) == 0 {
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	// cobra and etcd read os.Args themselves; present the chosen component as argv[0].
	os.Args = append([]string{name}, args...)
	switch name {
	case "etcd":
		etcdmain.Main(os.Args)
	case "kube-apiserver":
		os.Exit(cli.Run(apiserver.NewAPIServerCommand()))
	case "kube-controller-manager":
		os.Exit(cli.Run(controllermanager.NewControllerManagerCommand()))
	case "kube-scheduler":
		os.Exit(cli.Run(scheduler.NewSchedulerCommand()))
	case "kubectl":
		if err := cli.RunNoErrOutput(kubectl.NewDefaultKubectlCommand()); err != nil {
			cmdutil.CheckErr(err) // prints kubectl's own error format and exits non-zero
		}
	default:
		fmt.Fprintf(os.Stderr, "kubebin: unknown component %q\n%s\n", name, usage)
		os.Exit(2)
	}
}
