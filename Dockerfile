# Fileframe in a minimal image: a static Go binary (modernc.org/sqlite is
# pure Go, so CGO is off) on distroless/static, which holds CA certificates
# and time zones, runs as the unprivileged user "nonroot" (65532), and has
# no shell.
#
#   docker build -t fileframe .
#   docker run -p 8080:8080 -p 8081:8081 -v fileframe-data:/data fileframe
#
# Configure with FILEFRAME_* variables (see the README); docs/deploy.md has
# the production set-up.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY cmd ./cmd
COPY internal ./internal
# Only the packages the binary needs are downloaded; the module cache is
# kept between builds.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/fileframe ./cmd/fileframe
# The data directory, owned by the user that runs the service.
RUN mkdir /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/fileframe /fileframe
COPY --from=build --chown=65532:65532 /out/data /data
# Listen on every interface of the container; both origins have a port.
# Set FILEFRAME_BASE_URL and FILEFRAME_CONTENT_ORIGIN to the public URLs.
ENV FILEFRAME_ADDR=0.0.0.0:8080 \
    FILEFRAME_CONTENT_ADDR=0.0.0.0:8081 \
    FILEFRAME_DATA=/data
EXPOSE 8080 8081
VOLUME /data
USER nonroot:nonroot
ENTRYPOINT ["/fileframe"]
CMD ["serve"]
