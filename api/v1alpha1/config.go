package v1alpha1

// ConfigMapSelection says which of the ConfigMaps a pod template
// references belong to the set's revisions.
//
// +kubebuilder:validation:Enum=Referenced;Listed
type ConfigMapSelection string

const (
	// ConfigMapsReferenced puts every ConfigMap the pod template
	// references (volumes, projected volumes, envFrom, env valueFrom) in
	// the set's revisions.
	ConfigMapsReferenced ConfigMapSelection = "Referenced"
	// ConfigMapsListed puts only the referenced ConfigMaps that
	// configMapNames lists in the set's revisions.
	ConfigMapsListed ConfigMapSelection = "Listed"
)

// MaxConfigMaps and MaxConfigSecrets bound what one set's revisions hold:
// each object is read and copied once per data change, and each revision
// kept holds one copy of each (docs/config-revisions.md).
const (
	MaxConfigMaps    = 32
	MaxConfigSecrets = 16
)

// Labels and annotations the controller puts on the copies it makes of a
// set's ConfigMaps and Secrets.
const (
	// ConfigCopyOfLabel names, on a copy, the object it was copied from.
	ConfigCopyOfLabel = "apps.ordinal.dev/config-copy-of"
	// ConfigSetLabel names, on a copy, the extended set whose revisions
	// own it.
	ConfigSetLabel = "apps.ordinal.dev/config-set"
	// ConfigKeysAnnotation holds, on a copy, each key's hash (a JSON
	// object from key to hash): what `ordinal rollout history` compares
	// between revisions without reading a Secret's values.
	ConfigKeysAnnotation = "apps.ordinal.dev/config-keys"
	// ConfigRefsAnnotation holds, on a revision, the objects its template
	// reads through copies (a JSON list of kind, name and copy).
	ConfigRefsAnnotation = "apps.ordinal.dev/config-refs"
	// ConfigReloadAnnotation holds, on a pod of a set whose
	// configRevisions apply is Reload, which revision's data its live
	// ConfigMaps hold, since when, whether the application has yet to be
	// told, and each live ConfigMap with the copy it holds (JSON; see
	// docs/config-revisions.md#reload).
	ConfigReloadAnnotation = "apps.ordinal.dev/config-reload"
	// ConfigLiveOfLabel names, on a live ConfigMap (the one ConfigMap of
	// one pod that the controller writes, under Reload), the object whose
	// data it holds; ConfigPodLabel names the pod.
	ConfigLiveOfLabel = "apps.ordinal.dev/config-live-of"
	ConfigPodLabel    = "apps.ordinal.dev/config-pod"
	// ConfigCopyAnnotation names, on a live ConfigMap, the copy whose data
	// it holds.
	ConfigCopyAnnotation = "apps.ordinal.dev/config-copy"
)

// ConfigApply is how a new revision's data reaches the set's pods.
//
// +kubebuilder:validation:Enum=Restart;Reload
type ConfigApply string

const (
	// ConfigApplyRestart recreates each pod at the new revision: its
	// volumes and environment name the new revision's copies.
	ConfigApplyRestart ConfigApply = "Restart"
	// ConfigApplyReload keeps each pod running: the controller writes the
	// new data into the pod's own live ConfigMaps, which its configMap
	// volumes read, the kubelet refreshes the files, and lifecycle.reload
	// tells the application; the pod's revision label moves when it has.
	// A change the files cannot carry (a ConfigMap read through the
	// environment, a Secret, anything else of the template) recreates
	// the pod as Restart does.
	ConfigApplyReload ConfigApply = "Reload"
)

// ConfigRevisions makes the data of the ConfigMaps, and of the Secrets
// it names, that the pod template reads part of the set's revisions: a
// change of that data is a new revision and rolls out as a template
// change does, and an undo or a rollback brings the old data back. The
// pods of a revision read immutable copies the controller makes (named
// after the object and a hash of its data, owned by the revisions that
// use them); the objects themselves are never written.
type ConfigRevisions struct {
	// ConfigMaps says which referenced ConfigMaps belong to the
	// revisions: Referenced (every one the template references) or
	// Listed (those in configMapNames). Defaults to Referenced.
	//
	// +kubebuilder:default=Referenced
	// +optional
	ConfigMaps ConfigMapSelection `json:"configMaps,omitempty"`
	// ConfigMapNames lists the ConfigMaps that belong to the revisions
	// when configMaps is Listed.
	//
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	ConfigMapNames []string `json:"configMapNames,omitempty"`
	// Secrets names the Secrets that belong to the revisions, among
	// those the template references; no other Secret is read. The
	// controller's own role grants no access to Secrets: a namespace
	// whose sets name some grants it get, create and patch on secrets.
	//
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Secrets []string `json:"secrets,omitempty"`
	// Apply is how a new revision's data reaches running pods: Restart
	// (the default) recreates them as a template change does; Reload
	// writes it into each pod's live ConfigMaps and runs
	// lifecycle.reload, one pod at a time in the rolling update's order
	// and budget, without restarting the pod.
	//
	// +kubebuilder:default=Restart
	// +optional
	Apply ConfigApply `json:"apply,omitempty"`
}
