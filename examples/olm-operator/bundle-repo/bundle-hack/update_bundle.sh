#!/usr/bin/env bash
# Pins every image the bundle ships. Konflux nudges rewrite the digests below (one pull request per
# operand build); the bundle build then copies them into the ClusterServiceVersion.
set -euo pipefail

export STELLAR_OPERATOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-operator@sha256:14a773c1a317e1eb3331fc61f6958347f4ed6965d778803f855b4ab5de217401"
export STELLAR_API_SERVER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-api-server@sha256:45316676a139fc79f8ddffd51b8fcd0f813a504e74d857e7d6871ac877008cf6"
export STELLAR_CONSOLE_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-console@sha256:f92e685b7b5e5d24130f8ce96723e3e71fb91c04a1b1f02dd5b00820b9feb982"
export STELLAR_CONSOLE_PLUGIN_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-console-plugin@sha256:a4f2713fd16f3cf8085b40b2bef179cf98949f2be1c37fcbb43b9a2909eb8872"
export STELLAR_COLLECTOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-collector@sha256:5d777899e91dd200680b03c5c8225ef28d0576efe1b946c624c4656a5a063a51"
export STELLAR_INGESTER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-ingester@sha256:d9c01a0f42f142fdb5f6b2e2f97b87dde13eb3efa3ae174326ff5132bb50370a"
export STELLAR_QUERIER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-querier@sha256:722ea8adca0deda2e11ca9856487c452c490553863187be9bc3c37fd828e09c3"
export STELLAR_QUERY_FRONTEND_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-query-frontend@sha256:798c18bbe3fd40b72995d95fa27216543015becb67ed3a95396fedc70f93390b"
export STELLAR_COMPACTOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-compactor@sha256:efd955f2c9840bd76babcf9f2b257665b49f165c6afc1b104326f66a5632a386"
export STELLAR_RULER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-ruler@sha256:579e4a9e07d30dda9cf430a24a782fa1ad516b31c49bc2d72f68d429de7f8a52"
export STELLAR_ALERTMANAGER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-alertmanager@sha256:0981049709c31dffd1a13a92397029de8fc9748f3f5871b8dffbecc3e811c1d4"
export STELLAR_GATEWAY_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-gateway@sha256:a2d648d46ce425bafac06b8e84a47804012200dc0d4e9bdef19e152ac1012e6e"
export STELLAR_DISTRIBUTOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-distributor@sha256:ed7aab5a3799a21a0476257b2614713a805d9fc7989d3d7db6944eb24c42cf2a"
export STELLAR_STORE_GATEWAY_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-store-gateway@sha256:6cffc7ff4b47f5ceff5d52bea35a383450799a050b414151ee2c03a8a2326ee5"
export STELLAR_INDEX_GATEWAY_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-index-gateway@sha256:8ccd959882a6990de53562a45594d462a65a9faedcfc5107751747a2c5d28553"
export STELLAR_NODE_AGENT_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-node-agent@sha256:632fe6bc0f3d04f97515d2dedad63ba8096316ce56064820c65833d07b463eed"
export STELLAR_EBPF_AGENT_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-ebpf-agent@sha256:c8713109e37d988b1c41423fb9720e97c0d5b18823d1b6b5706be3418a2bf887"
export STELLAR_LOG_FORWARDER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-log-forwarder@sha256:234ee1d7bf6cf4d6867e79e51e09742eb9c1a9b7a434e6e36ca35a588416a84b"
export STELLAR_TRACE_COLLECTOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-trace-collector@sha256:c7d29e01ad933f76b55d29da5d5bb1979dff884afc1dc1e3be1b5378579221c4"
export STELLAR_METRICS_EXPORTER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-metrics-exporter@sha256:d4499907d6c285c6297b5670304804218b6737c238cd78ef2f3fff76c7337b09"
export STELLAR_KUBE_STATE_EXPORTER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-kube-state-exporter@sha256:cdff0afb5fe7120b05a4d7e0bb47feee2303ffd06478319843b7d8e3c2aa26dd"
export STELLAR_BLACKBOX_EXPORTER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-blackbox-exporter@sha256:2f5a215795c5c9973e9b6e432c14895a84cd47ae2870ee8d9599969ab011286c"
export STELLAR_CONFIG_RELOADER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-config-reloader@sha256:1158b5fe81d8f0c37a117cd16c0ea85e4f929c63ac2725165b4c2657ffc847a2"
export STELLAR_WEBHOOK_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-webhook@sha256:8ac436fc9fbbcb884f708819966ad62f5720775974686efa85c2353aef14969e"
export STELLAR_CERT_ROTATOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-cert-rotator@sha256:70b1804f4566e58372cf993e84d50d065c4311c9155974fc30ea96b77807e2bf"
export STELLAR_BACKUP_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-backup@sha256:5604c93545384d4af6eb9ee912bf5793c149e9c89bf902ddee94654877caf559"
export STELLAR_MIGRATOR_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-migrator@sha256:d5a9d2a4ef1d33a8e193410f1c8563ec612aef6eb7f0c27d33539eeee3d18857"
export STELLAR_MUST_GATHER_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-must-gather@sha256:199cc2553b67401a19f7bfb4a960d7608bd8fbc240b12540f7e1a09a98a0e624"
export STELLAR_CLI_DOWNLOADS_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-cli-downloads@sha256:b29c0c7b2a2d09823777732b3b2673271ec4378d58937c3052a933d7ab9261e8"
export STELLAR_OAUTH_PROXY_IMAGE_PULLSPEC="quay.io/redhat-user-workloads/stellar-tenant/stellar-oauth-proxy@sha256:9de58b95a296cc829e5876d2b8e54916052cef03dc7cf3055b12f060e503e6f9"

CSV="bundle/manifests/stellar-operator.clusterserviceversion.yaml"
for var in $(compgen -e | grep '_IMAGE_PULLSPEC$'); do
  name="${var%_IMAGE_PULLSPEC}"
  repo="quay.io/redhat-user-workloads/stellar-tenant/$(echo "$name" | tr 'A-Z_' 'a-z-')"
  sed -i -E "s#${repo}@sha256:[a-f0-9]{64}#${!var}#g" "$CSV"
done
