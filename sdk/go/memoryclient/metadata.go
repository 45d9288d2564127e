package memoryclient

import (
	"context"

	"google.golang.org/grpc/metadata"
)

func appendAuthorization(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}
