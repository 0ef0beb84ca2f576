// modprobe.d facts shared by the input reader and the module loader.
#pragma once

#include <string>
#include <string_view>

namespace rp {

// A module's or a module parameter's name with every '-' made '_': the two are the same to
// libkmod (shared/util.c underscores, modname_normalize), to the kernel's module names
// (/sys/module, modules.dep) and to its parameter names (kernel/params.c parameq).
std::string modprobe_name(std::string_view name);

// Whether an `install <module> <command>` command forbids loading the module: the command
// is true or false (/bin/true, /usr/bin/false, ...), the way hardening guides disable a
// module. modprobe, systemd-modules-load and udev's kmod builtin run the command instead
// of inserting the module (libkmod-module.c kmod_module_probe_insert_module), so the
// module never loads.
bool install_forbids(std::string_view command);

}  // namespace rp
