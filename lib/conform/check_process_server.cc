#include "conform/check_process_server.h"

#include <memory>
#include <memory_resource>

#include "remote/arena_resource.h"

namespace sectl::conform {
namespace {

// Enough for the largest host buffers checks hand the plugin at once (the
// copy checks' biggest size, fenced, several times over), the host-owned
// structs and their staging copies. Address space, not memory: pages are
// committed only when touched.
constexpr size_t kCheckArenaBytes = size_t{256} << 20;

struct Session {
  std::unique_ptr<remote::PluginServer> server;
  std::unique_ptr<remote::ArenaResource> host_buffers;
};

// Never destroyed: the process ends by _exit while buffers may still point
// into the arena.
Session& TheSession() {
  static auto* session = std::make_unique<Session>().release();
  return *session;
}

}  // namespace

Expected<remote::PluginServer*> StartCheckProcessServer(const std::string& executable,
                                                        bool guard_plugin_heap) {
  Session& session = TheSession();
  if (session.server) return session.server.get();
  auto started = remote::PluginServer::Start(
      executable, kCheckArenaBytes, remote::WhenTheServerEnds::kEndTheSameWay,
      guard_plugin_heap ? remote::PluginHeap::kGuarded : remote::PluginHeap::kPlain);
  if (!started) return tl::unexpected(started.error());
  session.server = std::move(*started);
  session.host_buffers = std::make_unique<remote::ArenaResource>(session.server->arena());
  std::pmr::set_default_resource(session.host_buffers.get());
  return session.server.get();
}

remote::PluginServer* CheckProcessServer() { return TheSession().server.get(); }

void EndCheckProcessServer() {
  Session& session = TheSession();
  if (!session.server) return;
  std::pmr::set_default_resource(std::pmr::new_delete_resource());
  session.server.reset();
}

}  // namespace sectl::conform
