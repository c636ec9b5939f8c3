// The transport as the server tells it — `bandstand transport`, POST …/transport, an agent's MCP
// play/stop/set_playhead/loop_section: the page's player follows each change made after the page
// opened the song (a state saved earlier is not replayed: opening a song never starts it playing).

import { follow } from "./api.js";

export function followTransport(projectId, transport, { onError = () => {} } = {}) {
  let seen = null;
  transport.remoteSeq = undefined;
  return follow(`/projects/${encodeURIComponent(projectId)}/transport/stream`, ["transport"], (state) => {
    const first = seen === null, old = !first && state.seq <= seen;
    seen = Math.max(seen ?? -1, state.seq);
    transport.remoteSeq = seen; // the last change the page has heard of
    if (!first && !old) apply(transport, state).catch(onError);
  });
}

async function apply(transport, state) {
  transport.setLoop(state.loop ? { start: state.loop.start, end: state.loop.end } : null);
  if (state.playing) {
    transport.seek(state.position);
    if (!transport.player) await transport.play();
  } else {
    transport.pause();
    transport.seek(state.position);
  }
}
