package v1alpha1

// ClaimRevisionLabel is the claim label naming the revision of the set
// whose volumeClaimTemplates the claim was last brought to: set when an
// extended set creates the claim, and when the InPlace claim update
// patches it.
const ClaimRevisionLabel = "apps.ordinal.dev/claim-revision"
