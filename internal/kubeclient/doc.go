// Package kubeclient is how a command reaches a cluster: the client
// configuration it loads (LoadRESTConfig), the protobuf encoding the
// controller's clients speak (UseProtobuf), whether the API server serves
// the extended kind (ExtendedInstalled) and that kind's client
// (ExtendedClient). It links no work queue, event recorder or metrics, so
// the dashboard and `ordinal rollout` ask it without linking the
// controller.
package kubeclient
