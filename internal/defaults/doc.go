// Package defaults applies the API server's apps/v1 defaults to a
// StatefulSet without the API server: exactly the fields, values and
// conditions of Kubernetes 1.37.2's scheme defaulting for apps/v1
// StatefulSets, written as a walk over the object.
//
// Two callers need it. The controller compares a template restored from a
// stored ControllerRevision with the live set after defaulting it, so that a
// revision written before a defaulted field existed is still recognised as
// the same template. A custom resource that embeds a StatefulSet spec is not
// defaulted by the API server at all; defaulting it here gives the same
// defaulted fields, hence the same revision bytes and hash, as the same
// manifest applied as a StatefulSet. One difference remains that is not a
// default: the API server's round trip through its internal version also
// copies spec.template.spec.serviceAccountName into the deprecated
// serviceAccount field (and sets apiVersion and kind on claim templates),
// which this package does not do.
//
// The rules, by part of the object (a default applies only where the field
// is empty or nil):
//
//   - Set: podManagementPolicy OrderedReady; replicas 1;
//     revisionHistoryLimit 10; both claim retention policies Retain; an
//     empty updateStrategy becomes RollingUpdate with an empty
//     rollingUpdate; a RollingUpdate strategy's rollingUpdate gets partition
//     0 and, with Options.MaxUnavailable, maxUnavailable 1.
//   - Pod spec: dnsPolicy ClusterFirst; restartPolicy Always; an empty
//     securityContext; terminationGracePeriodSeconds 30; schedulerName
//     default-scheduler.
//   - Containers, init containers and ephemeral containers: imagePullPolicy
//     Always for a valid image reference tagged latest or with neither tag
//     nor digest, IfNotPresent otherwise (an unparsable reference included);
//     terminationMessagePath /dev/termination-log; terminationMessagePolicy
//     File; port protocol TCP; env fieldRef apiVersion v1; env fileKeyRef
//     optional false.
//   - Probes (liveness, readiness, startup): timeoutSeconds 1, periodSeconds
//     10, successThreshold 1, failureThreshold 3; httpGet path "/" and
//     scheme HTTP; grpc service "". Lifecycle hooks: httpGet as in probes.
//   - Volumes: no source at all becomes emptyDir; image volume pullPolicy as
//     for containers; hostPath type "" (unset); secret, configMap,
//     downwardAPI and projected defaultMode 0644; downward API fieldRef
//     apiVersion v1 (in downwardAPI and projected volumes); projected
//     serviceAccountToken expirationSeconds 3600; iSCSI iscsiInterface
//     default; RBD pool rbd, user admin, keyring /etc/ceph/keyring; Azure
//     Disk cachingMode ReadWrite, fsType ext4, readOnly false, kind Shared;
//     ScaleIO storageMode ThinProvisioned, fsType xfs; an ephemeral volume's
//     claim template as a claim spec below.
//   - Claim specs (volumeClaimTemplates and ephemeral volumes): volumeMode
//     Filesystem. volumeClaimTemplates also get status.phase Pending.
//   - Resource lists (container limits and requests, pod overhead and
//     pod-level resources, claim spec resources, claim template status
//     capacity and allocatedResources): every quantity rounded up to a
//     whole milli-unit. This is the only rule that changes a value already
//     set.
//
// Nothing else is defaulted: in particular not the Pod-only defaults
// (requests copied from limits, enableServiceLinks, host ports under host
// networking, pod-level requests), which the API server applies to Pods and
// never to a workload's template.
//
// Feature gates. The defaults depend on these gates of Kubernetes 1.37.2;
// the values assumed are:
//
//   - MaxUnavailableStatefulSet: Options.MaxUnavailable (1.37 ships it on,
//     beta; 1.35.4 to 1.36 shipped it off); decides the maxUnavailable
//     default.
//   - ImageVolume: on (GA and locked on since 1.36); decides the image
//     volume pullPolicy default.
//
// PodLevelResources and PodLogsQuerySplitStreams guard defaults of Pods
// and PodLogOptions only, so they do not reach a StatefulSet.
// StatefulSetSemanticRevisionComparison is the gate under which upstream's
// controller defaults restored revisions. 1.37 moved the sync of the
// deprecated serviceAccount with serviceAccountName from conversion to
// defaulting; the stored object is the same, and this package does it too.
//
// Defaulting is idempotent and accepts a nil pointer anywhere. A set that
// is already defaulted (one read from the API server, or a template
// restored from a revision it wrote) costs a walk and no allocation. The
// package imports only k8s.io/api, k8s.io/apimachinery and k8s.io/utils,
// never k8s.io/kubernetes; its tests check that, and compare it with the
// API server's own defaulting.
package defaults
