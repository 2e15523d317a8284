package v1alpha1

// RecreationsAnnotation is the annotation that, on a pod the provider made
// from a ShadowPod, counts how many times the provider recreated that pod
// after it vanished (an eviction, a drain). The consumer adds it to the containers' restartCount, so
// `kubectl get pods` on the consumer shows a restart where the provider
// replaced the pod. It is Spillway's: Liqo has no such contract.
const RecreationsAnnotation = "spillway.liqo.io/recreations"
