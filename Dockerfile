# Spillway's images for those who build with Docker or BuildKit; `make image`
# builds the same images without a Docker engine (hack/image). Both: static
# binaries (no cgo), in /usr/local/bin, run as the nonroot user 65532.
#
#   docker build -t ghcr.io/spillway-dev/spillway-controller:v0.1.0 .
#   docker build --target spillway-gateway -t ghcr.io/spillway-dev/spillway-gateway:v0.1.0 .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w" -o /out/ ./cmd/spillway-controller ./cmd/spillway-gateway

# One spillway-gateway per peering when the manager does not run them.
FROM gcr.io/distroless/static-debian12:nonroot AS spillway-gateway
COPY --from=build /out/spillway-gateway /usr/local/bin/spillway-gateway
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/spillway-gateway"]

# The manager, with spillway-gateway next to it: it starts one per peering
# from its own directory (kustomize/components/fabric). The default target.
FROM gcr.io/distroless/static-debian12:nonroot AS spillway-controller
COPY --from=build /out/spillway-controller /out/spillway-gateway /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/spillway-controller"]
