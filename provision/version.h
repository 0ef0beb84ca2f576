// The program's version, printed by --version and recorded in the /run state file.
#pragma once

#define RDMA_PROVISION_VERSION "0.1.0"
