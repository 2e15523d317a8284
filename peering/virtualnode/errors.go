package virtualnode

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var metaPatchOptions = metav1.PatchOptions{FieldManager: "spillway-virtual-kubelet"}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }
