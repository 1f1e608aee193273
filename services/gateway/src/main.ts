import { createLogger, loadConfig, runMain } from '@vus/core';
import { useInternalSecret } from '@vus/grpc';
import { gatewayEnv, gatewayOptionsFromEnv } from './env';
import { startGateway } from './gateway';

export { startGateway, type GatewayOptions, type RunningGateway } from './gateway';
export { gatewayEnv } from './env';

/** Cluster mode: configured from the environment (the Helm chart's form). */
if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(gatewayEnv);
    useInternalSecret(config.INTERNAL_GRPC_SECRET);
    return startGateway(await gatewayOptionsFromEnv(config, createLogger({ service: 'gateway', level: config.LOG_LEVEL })));
  });
}
