package v1alpha1

// MaxReplicas is the most pods one set may ask for: spec.replicas'
// schema maximum (the marker on StatefulSetSpec.Replicas repeats it; a
// test holds the two together).
//
// It lies below Kubernetes' documented limit of 150000 pods in a whole
// cluster, so no set that the schema admits could run in a cluster that
// keeps to it, while a typo or a stray `kubectl scale --replicas=1000000`
// is refused by the API server with a message instead of becoming a
// rollout that never ends. From ordinal 0 its ordinals have at most five
// digits, so every pod of a set whose name fits its revision label (52
// characters) has a name within the 63 a hostname allows. Ordinals
// past the largest int32 cannot be named whatever the maximum, since
// ordinals.start may be anything up to it: the controller manages the
// ones that can be and warns about the rest (OrdinalOverflow).
const MaxReplicas = 100000
