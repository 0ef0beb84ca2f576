/*
 * <infiniband/all_providers.h> for rdma-core 56.1, written for our Bazel build
 * (rules/third_party/rdma_core.BUILD). cmake generates it with every provider it builds; we
 * list exactly the providers we compile, otherwise verbs_provider_all (libibverbs/
 * all_providers.c, used by RDMA_STATIC_PROVIDERS=all) would reference undefined symbols.
 * Keep in sync with _PROVIDERS in rdma_core.BUILD.
 */
#ifndef RDMA_PROVISION_ALL_PROVIDERS_H
#define RDMA_PROVISION_ALL_PROVIDERS_H

#define FOR_EACH_PROVIDER() \
	FOR_PROVIDER(mlx4) FOR_PROVIDER(mlx5) FOR_PROVIDER(rxe) FOR_PROVIDER(siw)

#endif
