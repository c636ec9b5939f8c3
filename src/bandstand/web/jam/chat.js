// The jam's chat: one line per message the chat shows (a member's thought, the boss's
// directive, a context change, the boss's rewrite of a member's pattern, an error, the jam's
// start or stop), drawn the
// same way live and when the server replays its history to a reloaded or new tab
// (`chat_history`). A refused pattern is shown under its reason, which names the notes.
import { codeHtml, esc } from "/static/jam/code.js";

export class Chat {
  constructor(box, colourOf) {
    this.box = box;
    this.colourOf = colourOf; // member name → CSS colour
    this.stickToBottom = true;
    this.lastRound = 0;
    box.addEventListener("scroll", () => { this.stickToBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40; });
  }

  // Draw one server message; returns whether the chat shows it.
  show(m) {
    const draw = LINES[m.type];
    if (!draw) return false;
    draw(this, m);
    return true;
  }

  // The server's history: the chat starts over with it (a reconnect does not double it).
  replay(messages) {
    this.clear();
    for (const m of messages) this.show(m);
    if (messages.length) this.line(`↺ ${messages.length} earlier message${messages.length === 1 ? "" : "s"} of this jam`, "system replayed");
  }

  clear() { this.box.replaceChildren(); this.lastRound = 0; }

  line(html, kind = "", colour = "") {
    const div = document.createElement("div");
    div.className = `msg ${kind}`; if (colour) div.style.setProperty("--role", colour);
    div.innerHTML = html;
    this.append(div);
    return div;
  }

  roundMark(round) {
    if (round === this.lastRound) return;
    this.lastRound = round;
    const div = document.createElement("div"); div.className = "round-mark"; div.textContent = `— ROUND ${round} —`;
    this.append(div);
  }

  append(node) {
    this.box.appendChild(node);
    if (this.stickToBottom) this.box.scrollTop = this.box.scrollHeight;
  }
}

function rejected(code) {
  return code ? `<span class="rejected">refused: <code class="code">${codeHtml(code)}</code></span>` : "";
}

const LINES = {
  jam_state_update(chat, m) { // a start or a stop
    chat.line(m.running ? `▶ Jam started — ${esc(m.context.key)}, ${m.context.bpm} BPM`
      : `■ Jam stopped after ${m.round} round${m.round === 1 ? "" : "s"}`, "system");
  },
  agent_thought(chat, m) {
    chat.roundMark(m.round);
    const tag = m.complied_with_boss ? "" : `<span class="tag">✋ did not comply</span>`;
    const note = m.note ? `<span class="note">${esc(m.note)}</span>` : "";
    chat.line(`<span class="who">${esc(m.emoji)} ${esc(m.member)}</span>${esc(m.thought)} <span class="reaction">${esc(m.reaction)}</span>${tag}${note}${rejected(m.rejected)}`,
      "", chat.colourOf(m.member));
  },
  boss_directive_echo(chat, m) {
    chat.line(`<span class="who">🎤 BOSS${m.to.length ? " → " + esc(m.to.join(", ")) : ""}</span>${esc(m.text)}`, "boss");
  },
  musical_context_update(chat, m) {
    chat.line(`Context: ${esc(m.changed.join(", "))} → ${esc(m.context.key)}, energy ${m.context.energy}/10, ${m.context.bpm} BPM`, "system");
  },
  code_override(chat, m) {
    chat.line(`<span class="who">🎤 BOSS rewrote ${esc(m.member)}'s pattern</span><code class="code">${codeHtml(m.code)}</code>`, "boss edit", chat.colourOf(m.member));
  },
  jam_kept(chat, m) {
    const left = m.left_out?.length ? ` <span class="muted">(left out: ${esc(m.left_out.join(", "))})</span>` : "";
    chat.line(`★ Kept as a song: ${esc(m.form.join(" · "))} — <a class="kept" href="/studio#/song/${encodeURIComponent(m.project)}" target="_blank" rel="noopener">open it in the studio</a>${left}`, "system kept");
  },
  error(chat, m) {
    chat.line(`${esc(m.message)}${rejected(m.pattern)}`, "error");
  },
};
