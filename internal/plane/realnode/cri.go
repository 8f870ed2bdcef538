package realnode

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// criClient speaks the Container Runtime Interface to the node's
// containerd: the kubelet's own language, used here to wait for the runtime
// and to remove every pod sandbox when the node stops.
type criClient struct {
	conn    *grpc.ClientConn
	runtime runtimeapi.RuntimeServiceClient
}

func dialCRI(socket string) (*criClient, error) {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("CRI client for %s: %w", socket, err)
	}
	return &criClient{conn: conn, runtime: runtimeapi.NewRuntimeServiceClient(conn)}, nil
}

func (c *criClient) Close() error { return c.conn.Close() }

// ready tells whether the runtime answers and reports itself ready. The
// network condition is not required: it turns true only once a CNI
// configuration is in place.
func (c *criClient) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := c.runtime.Status(ctx, &runtimeapi.StatusRequest{})
	if err != nil {
		return err
	}
	for _, cond := range st.GetStatus().GetConditions() {
		if cond.GetType() == runtimeapi.RuntimeReady && !cond.GetStatus() {
			return fmt.Errorf("runtime not ready: %s %s", cond.GetReason(), cond.GetMessage())
		}
	}
	return nil
}

// removeSandboxes stops and removes every pod sandbox: their containers are
// killed, their network torn down through CNI, their mounts and cgroups
// removed. It returns how many it removed.
func (c *criClient) removeSandboxes(ctx context.Context) (int, error) {
	list, err := c.runtime.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return 0, fmt.Errorf("listing pod sandboxes: %w", err)
	}
	var errs []error
	for _, sb := range list.GetItems() {
		id := sb.GetId()
		if _, err := c.runtime.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: id}); err != nil {
			errs = append(errs, fmt.Errorf("stopping sandbox %s: %w", id, err))
			continue
		}
		if _, err := c.runtime.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: id}); err != nil {
			errs = append(errs, fmt.Errorf("removing sandbox %s: %w", id, err))
		}
	}
	return len(list.GetItems()), errors.Join(errs...)
}
