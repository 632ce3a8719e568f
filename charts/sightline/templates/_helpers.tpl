{{/* Chart name, truncated to the 63-character DNS limit. */}}
{{- define "sightline.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-scoped base name. */}}
{{- define "sightline.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The launcher target of a services.<key> entry (scriptBuilder → script-builder). */}}
{{- define "sightline.target" -}}
{{- if eq . "scriptBuilder" -}}script-builder{{- else -}}{{ . }}{{- end -}}
{{- end -}}

{{/* Name of one service's objects: <fullname>-<target>. */}}
{{- define "sightline.componentName" -}}
{{- printf "%s-%s" (include "sightline.fullname" .root) (include "sightline.target" .key) -}}
{{- end -}}

{{- define "sightline.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sightline.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "sightline.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sightline.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ include "sightline.target" .key }}
{{- end -}}

{{- define "sightline.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "sightline.secretName" -}}
{{- default (printf "%s-secrets" (include "sightline.fullname" .)) .Values.existingSecret -}}
{{- end -}}

{{- define "sightline.configName" -}}
{{- printf "%s-config" (include "sightline.fullname" .) -}}
{{- end -}}

{{/* Environment shared by every container: the ConfigMap, the Secret, and every service's gRPC address. */}}
{{- define "sightline.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "sightline.configName" . }}
env:
  {{- include "sightline.secretEnv" (include "sightline.secretName" .) | trim | nindent 2 }}
{{- end -}}

{{/* The store URLs and SECRET_KEY as env entries read from the Secret named by the argument (each key may be absent). */}}
{{- define "sightline.secretEnv" -}}
{{- range $key := list "DATABASE_URL" "CLICKHOUSE_URL" "NATS_URL" "SMTP_URL" "SECRET_KEY" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $ }}
      key: {{ $key }}
      optional: true
{{- end }}
{{- end -}}

{{/*
The Secret the migrations hook reads: the operator's existingSecret (created before
the install), else a hook copy of the chart's Secret (templates/migrations-secret.yaml)
that Helm creates just before the Job. The chart's own Secret is an ordinary
resource, created only after every pre-install hook has run.
*/}}
{{- define "sightline.migrationsSecretName" -}}
{{- default (printf "%s-migrate" (include "sightline.fullname" .)) .Values.existingSecret -}}
{{- end -}}

{{/*
TRUSTED_PROXIES: `env.TRUSTED_PROXIES` when set, else with the chart's Ingress its
controller's pods (`ingress.trustedProxies`), else empty (the socket address is the client).
*/}}
{{- define "sightline.trustedProxies" -}}
{{- $explicit := toString (dig "TRUSTED_PROXIES" "" (.Values.env | default dict)) -}}
{{- if $explicit -}}
{{- $explicit -}}
{{- else if .Values.ingress.enabled -}}
{{- join "," (.Values.ingress.trustedProxies | default list) -}}
{{- end -}}
{{- end -}}

{{/* Pod-level settings shared by every workload. */}}
{{- define "sightline.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
A container's resources; with cpuLimitsFromRequests, a CPU limit equal to the CPU
request where none is set. Called with (dict "root" $ "resources" <resources>).
*/}}
{{- define "sightline.resources" -}}
{{- $resources := deepCopy (.resources | default dict) -}}
{{- if and .root.Values.cpuLimitsFromRequests (dig "requests" "cpu" "" $resources) (not (dig "limits" "cpu" "" $resources)) -}}
{{- $_ := set $resources "limits" (merge (dict "cpu" $resources.requests.cpu) ($resources.limits | default dict)) -}}
{{- end -}}
{{- toYaml $resources -}}
{{- end -}}

{{/*
A workload's topologySpreadConstraints: its service's own list, else the chart-wide
one; a constraint without a labelSelector spreads this workload's pods. Called with
(dict "root" $ "key" <services key> "service" <services entry>).
*/}}
{{- define "sightline.topologySpread" -}}
{{- $constraints := .service.topologySpreadConstraints | default .root.Values.topologySpreadConstraints | default list -}}
{{- $selector := include "sightline.selectorLabels" (dict "root" .root "key" .key) | fromYaml -}}
{{- $rendered := list -}}
{{- range $constraints -}}
{{- $constraint := deepCopy . -}}
{{- if not (hasKey $constraint "labelSelector") -}}
{{- $_ := set $constraint "labelSelector" (dict "matchLabels" $selector) -}}
{{- end -}}
{{- $rendered = append $rendered $constraint -}}
{{- end -}}
{{- with $rendered -}}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}
