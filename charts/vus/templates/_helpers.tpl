{{/*
Shared named templates. Every service template builds one context and calls these:

  {{- $c := dict "root" . "name" "index-service" "values" .Values.indexService
        "protocol" "grpc" "healthService" "vus.index.v1.IndexService" }}

  root           the top-level context (.)
  name           the service's folder under services/ (also its component label and name suffix)
  values         the service's values block
  protocol       "grpc" (GRPC_BIND on port 50051, grpc.health.v1 probes) or "http" (HOST/PORT 8080,
                 /healthz liveness and /readyz readiness)
  healthService  grpc only: the fully qualified service name its readiness probe asks about
                 ("" for a process that serves health checks only: ready while it answers)
  command        optional container command (list); default node, the values' nodeArgs (if any) and
                 services/<name>/dist/main.js
  env            optional dict of wiring variables the chart sets (e.g. peer addresses)
  secretEnv      optional dict NAME -> { secretName, key }; skipped when secretName is empty
  mounts         optional list of volumes besides /tmp: dicts { name, mountPath, readOnly, source }
                 where source is the Pod volume's source (e.g. { persistentVolumeClaim: … })
*/}}

{{- define "vus.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- define "vus.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{/* Name of a service's Deployment, Service and NetworkPolicy. Context: dict root, name. */}}
{{- define "vus.componentName" -}}
{{- printf "%s-%s" (include "vus.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- define "vus.selectorLabels" -}}
app.kubernetes.io/name: {{ include "vus.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "vus.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "vus.selectorLabels" . }}
app.kubernetes.io/part-of: {{ include "vus.name" .root }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{/* The port every gRPC service listens on (GRPC_BIND) and its Service exposes. */}}
{{- define "vus.grpcPort" -}}50051{{- end }}
{{/* The gateway's container port (PORT). */}}
{{- define "vus.httpPort" -}}8080{{- end }}

{{/*
host:port of a gRPC service's Service, for a peer's *_SERVICE_ADDR. Context: dict root, name, values.
Fails when that service is disabled: its callers cannot start without it.
*/}}
{{- define "vus.grpcAddress" -}}
{{- if not .values.enabled -}}
{{- fail (printf "%s is disabled but another service needs its address" .name) -}}
{{- end -}}
{{- printf "%s:%s" (include "vus.componentName" .) (include "vus.grpcPort" .) -}}
{{- end }}

{{/* The address of an optional peer: host:port when it is enabled, "" when not. */}}
{{- define "vus.optionalGrpcAddress" -}}
{{- if .values.enabled -}}{{ include "vus.grpcAddress" . }}{{- end -}}
{{- end }}

{{/* Wiring for services that publish or consume events: KAFKA_BROKERS when global.kafka.brokers is set. */}}
{{- define "vus.kafkaEnv" -}}
{{- $brokers := (default (dict) .Values.global.kafka).brokers -}}
{{- if $brokers }}KAFKA_BROKERS: {{ $brokers | quote }}{{ end -}}
{{- end }}

{{/* The PersistentVolumeClaim of the blob store: global.blobs.existingClaim, or the chart's own. */}}
{{- define "vus.blobsClaim" -}}
{{- default (printf "%s-blobs" (include "vus.fullname" .)) .Values.global.blobs.existingClaim -}}
{{- end }}

{{/* The blob store's mount (a "mounts" entry, as YAML: read it back with fromYaml). */}}
{{- define "vus.blobsMount" -}}
name: blobs
mountPath: {{ .Values.global.blobs.mountPath | default "/data/blobs" }}
source:
  persistentVolumeClaim:
    claimName: {{ include "vus.blobsClaim" . }}
{{- end }}

{{/* The models volume's mount, read-only (YAML, as above); empty when no claim is named. */}}
{{- define "vus.modelsMount" -}}
{{- $models := default (dict) .Values.global.models -}}
{{- if $models.existingClaim -}}
name: models
mountPath: {{ $models.mountPath | default "/models" }}
readOnly: true
source:
  persistentVolumeClaim:
    claimName: {{ $models.existingClaim }}
    readOnly: true
{{- end -}}
{{- end }}

{{- define "vus.image" -}}
{{- $global := .root.Values.global.image -}}
{{- $own := default (dict) .values.image -}}
{{- $repository := default $global.repository $own.repository -}}
{{- $tag := default (default .root.Chart.AppVersion $global.tag) $own.tag -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end }}

{{/* Name of the Secret holding INTERNAL_GRPC_SECRET: global.internalSecret.secretName, or the chart's own. */}}
{{- define "vus.internalSecretName" -}}
{{- default (printf "%s-internal" (include "vus.fullname" .)) (default (dict) .Values.global.internalSecret).secretName -}}
{{- end }}

{{/* Container env: chart wiring, LOG_LEVEL, global and service env, then Secret references. */}}
{{- define "vus.env" -}}
{{- $wiring := dict -}}
{{- if eq .protocol "grpc" -}}
{{- $_ := set $wiring "GRPC_BIND" (printf "0.0.0.0:%s" (include "vus.grpcPort" .)) -}}
{{- else -}}
{{- $_ := set $wiring "HOST" "0.0.0.0" -}}
{{- $_ := set $wiring "PORT" (include "vus.httpPort" .) -}}
{{- end -}}
{{- $wiring = merge $wiring (default (dict) .env) (include "vus.telemetryEnv" . | fromYaml) -}}
{{- $internal := dict "secretName" (include "vus.internalSecretName" .root) "key" ((default (dict) .root.Values.global.internalSecret).key | default "secret") -}}
{{- $secretEnv := merge (dict "DATABASE_URL" .values.databaseUrl "INTERNAL_GRPC_SECRET" $internal) (default (dict) .secretEnv) -}}
{{- $user := merge (dict) (default (dict) .values.env) (default (dict) .root.Values.global.env) (dict "LOG_LEVEL" (default "info" .root.Values.global.logLevel)) -}}
{{- range $name, $_ := merge (dict) $wiring $secretEnv -}}
{{- if hasKey $user $name -}}
{{- fail (printf "env %s of %s is set by the chart; remove it from the env values" $name $.name) -}}
{{- end -}}
{{- end -}}
{{- range $name, $value := merge (dict) $wiring $user }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- range $name, $ref := $secretEnv }}
{{- if $ref.secretName }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $ref.secretName }}
      key: {{ $ref.key }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Probes. Liveness never depends on other services; readiness does (the gateway's /readyz checks its
database and peers; a gRPC service's own health name follows its database). The startup probe gives
boot-time migrations up to five minutes before liveness starts counting.
*/}}
{{- define "vus.probes" -}}
{{- if eq .protocol "grpc" -}}
{{- $port := include "vus.grpcPort" . | int -}}
startupProbe:
  grpc:
    port: {{ $port }}
    service: ""
  periodSeconds: 5
  failureThreshold: 60
livenessProbe:
  grpc:
    port: {{ $port }}
    service: ""
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 6
readinessProbe:
  grpc:
    port: {{ $port }}
    {{- if not (hasKey . "healthService") }}
    {{- fail (printf "%s: a gRPC service needs healthService" .name) }}
    {{- end }}
    service: {{ .healthService | quote }}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 3
{{- else -}}
startupProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 5
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 6
readinessProbe:
  httpGet:
    path: /readyz
    port: http
  periodSeconds: 5
  timeoutSeconds: 5
  failureThreshold: 3
{{- end -}}
{{- end }}

{{/*
The telemetry variables of a component (global.telemetry), as YAML: the register hook, its name,
the OTLP endpoint and the metrics port. Nothing when both traces and metrics are off.
*/}}
{{- define "vus.telemetryEnv" -}}
{{- $t := default (dict) .root.Values.global.telemetry -}}
{{- $metrics := default (dict) $t.metrics -}}
{{- if or $t.otlpEndpoint $metrics.enabled -}}
NODE_OPTIONS: --require @vus/telemetry/register
OTEL_SERVICE_NAME: {{ .name }}
{{- if $t.otlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ $t.otlpEndpoint | quote }}
{{- end }}
{{- if $metrics.enabled }}
METRICS_PORT: {{ $metrics.port | default 9464 | quote }}
METRICS_HOST: 0.0.0.0
{{- end }}
{{- end -}}
{{- end }}

{{- define "vus.deployment" -}}
{{- $g := .root.Values.global -}}
{{- $v := .values -}}
{{- $portName := ternary "grpc" "http" (eq .protocol "grpc") -}}
{{- $port := ternary (include "vus.grpcPort" .) (include "vus.httpPort" .) (eq .protocol "grpc") | int -}}
{{- $podAnnotations := merge (dict) (default (dict) $v.podAnnotations) (default (dict) $g.podAnnotations) -}}
{{- $nodeSelector := default $g.nodeSelector $v.nodeSelector -}}
{{- $tolerations := default $g.tolerations $v.tolerations -}}
{{- $affinity := default $g.affinity $v.affinity -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "vus.componentName" . }}
  labels:
    {{- include "vus.labels" . | nindent 4 }}
spec:
  {{- if not .autoscaled }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "vus.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "vus.labels" . | nindent 8 }}
      {{- with $podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- with $g.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $g.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .name }}
          image: {{ include "vus.image" . | quote }}
          imagePullPolicy: {{ (default (dict) $v.image).pullPolicy | default $g.image.pullPolicy | default "IfNotPresent" }}
          command: {{ .command | default (concat (list "node") (default (list) $v.nodeArgs) (list (printf "services/%s/dist/main.js" .name))) | toJson }}
          ports:
            - name: {{ $portName }}
              containerPort: {{ $port }}
              protocol: TCP
            {{- with (default (dict) .root.Values.global.telemetry).metrics }}
            {{- if .enabled }}
            - name: metrics
              containerPort: {{ .port | default 9464 }}
              protocol: TCP
            {{- end }}
            {{- end }}
          env:
            {{- include "vus.env" . | trim | nindent 12 }}
          {{- include "vus.probes" . | nindent 10 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $g.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- range .mounts }}
            - name: {{ .name }}
              mountPath: {{ .mountPath }}
              {{- if .readOnly }}
              readOnly: true
              {{- end }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- range .mounts }}
        - name: {{ .name }}
          {{- toYaml .source | nindent 10 }}
        {{- end }}
      {{- with $nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{- define "vus.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "vus.componentName" . }}
  labels:
    {{- include "vus.labels" . | nindent 4 }}
spec:
  {{- if eq .protocol "grpc" }}
  type: ClusterIP
  ports:
    - name: grpc
      port: {{ include "vus.grpcPort" . | int }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
  {{- else }}
  {{- $svc := default (dict) .values.service }}
  type: {{ $svc.type | default "ClusterIP" }}
  ports:
    - name: http
      port: {{ $svc.port | default 80 }}
      targetPort: http
      protocol: TCP
      appProtocol: http
  {{- end }}
  selector:
    {{- include "vus.selectorLabels" . | nindent 4 }}
{{- end }}

{{/*
Optional NetworkPolicy (global.networkPolicy.enabled): gRPC services accept only this release's
pods; the gateway accepts global.networkPolicy.gatewayFrom (anyone when empty). Renders nothing
when disabled; otherwise starts with a document separator.
*/}}
{{- define "vus.networkPolicy" -}}
{{- $np := default (dict) .root.Values.global.networkPolicy -}}
{{- if $np.enabled }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "vus.componentName" . }}
  labels:
    {{- include "vus.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "vus.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress]
  ingress:
    {{- if eq .protocol "grpc" }}
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ include "vus.name" .root }}
              app.kubernetes.io/instance: {{ .root.Release.Name }}
      ports:
        - port: grpc
          protocol: TCP
    {{- else }}
    - ports:
        - port: http
          protocol: TCP
      {{- with $np.gatewayFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
{{- end }}
{{- end }}

{{/* A whole service: Deployment, Service and (optionally) NetworkPolicy, when enabled. */}}
{{- define "vus.component" -}}
{{- if .values.enabled }}
{{ include "vus.deployment" . }}
---
{{ include "vus.service" . }}
{{ include "vus.networkPolicy" . }}
{{- end }}
{{- end }}
