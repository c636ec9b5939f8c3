// The track headers beside the lanes — name, instrument, mute, solo, a level meter, volume, pan
// and the effect chain — and the track dialog (the whole chain, sends, adding an effect). A change is heard at
// once (the page's mixer) and sent as a tool call (`onTool`), so it becomes a revision that undo
// covers. The effect types and their parameters come from the server's tools.json.

import { esc } from "./dom.js";
import { LANE } from "./timeline.js";

export class TrackHeads {
  constructor(root, dialog, { onMix = () => {}, onTool = async () => {}, effectTypes = () => [] } = {}) {
    this.root = root;
    this.dialog = dialog;
    this.onMix = onMix;
    this.onTool = onTool;
    this.effectTypes = effectTypes;
    this.view = null;
    root.addEventListener("click", (e) => this.click(e));
    root.addEventListener("input", (e) => this.slide(e, false));
    root.addEventListener("change", (e) => this.slide(e, true));
    dialog.addEventListener("click", (e) => this.dialogClick(e));
    dialog.addEventListener("submit", (e) => this.addEffect(e));
    dialog.addEventListener("input", (e) => this.dialogSlide(e, false));
    dialog.addEventListener("change", (e) => this.dialogSlide(e, true));
  }

  render(view) {
    this.view = view;
    // a part a variation proposes has its lane and head, but no mixer until it is accepted
    this.root.innerHTML = view.tracks.map((t) => { const off = t.proposed ? "disabled" : ""; return `
      <div class="head${t.proposed ? " proposed" : ""}" data-track="${esc(t.id)}" style="--colour:${esc(t.colour)};height:${LANE}px"
        ${t.proposed ? `title="a new part under review: accept it to mix it"` : ""}>
        <div class="head-name"><b title="${esc(t.name)}">${esc(t.name)}</b>
          <span class="instrument muted" title="${esc(view.instruments[t.id] || "")}">${esc(view.instruments[t.id] || t.role)}</span></div>
        <div class="head-buttons">
          <button class="m ${t.mute ? "on" : ""}" data-act="mute" ${off} aria-pressed="${t.mute}" title="mute ${esc(t.name)}">M</button>
          <button class="s ${t.solo ? "on" : ""}" data-act="solo" ${off} aria-pressed="${t.solo}" title="solo ${esc(t.name)}">S</button>
          <button class="fx" data-act="fx" ${off} title="${esc(t.name)}: effects and sends">fx${t.inserts.length ? ` ${t.inserts.length}` : ""}</button>
          <span class="meter track-meter" title="${esc(t.name)}: peak (bar) and loudness (RMS, the darker bar), before the master level"
            aria-label="${esc(t.name)} level meter"><i class="rms"></i><i class="peak"></i></span><span class="db muted">−∞</span>
        </div>
        <div class="head-sliders">
          <label title="volume"><span>vol</span><input type="range" data-act="volume" ${off} min="0" max="1.5" step="0.01" value="${t.volume}" aria-label="${esc(t.name)} volume"></label>
          <label title="pan"><span>pan</span><input type="range" data-act="pan" ${off} min="0" max="1" step="0.01" value="${t.pan}" aria-label="${esc(t.name)} pan"></label>
        </div>
      </div>`; }).join("");
    if (this.dialog.open && this.dialogTrack) this.openDialog(this.dialogTrack);
  }

  track(el) {
    const id = el.closest(".head")?.dataset.track;
    return this.view?.tracks.find((t) => t.id === id);
  }

  click(e) {
    const button = e.target.closest("button[data-act]"); if (!button) return;
    const track = this.track(button); if (!track) return;
    const act = button.dataset.act;
    if (act === "fx") { this.openDialog(track.id); return; }
    const on = !button.classList.contains("on");
    button.classList.toggle("on", on); button.setAttribute("aria-pressed", String(on));
    this.onMix(track.id, { [act]: on });
    this.onTool([act === "mute" ? { name: "mute_track", args: { track: track.id, muted: on } }
      : { name: "solo_track", args: { track: track.id, solo: on } }], `${on ? "" : "un"}${act} ${track.name}`);
  }

  slide(e, done) {
    const input = e.target.closest("input[data-act]"); if (!input) return;
    const track = this.track(input); if (!track) return;
    const value = Number(input.value), act = input.dataset.act;
    this.onMix(track.id, { [act]: value });
    if (!done) return;
    this.onTool([{ name: act === "volume" ? "set_track_volume" : "set_track_pan", args: { track: track.id, [act]: value } }],
      `${track.name} ${act} ${value.toFixed(2)}`);
  }

  // ------------------------------------------------------------------ the effect chain

  openDialog(trackId) {
    const track = this.view.tracks.find((t) => t.id === trackId); if (!track) return;
    this.dialogTrack = trackId;
    const buses = new Map((this.view.project.buses || []).map((b) => [b.id, b.name]));
    const params = (fx) => Object.entries(fx.params || {}).map(([k, v]) => `${k} ${typeof v === "number" ? +v.toFixed(3) : v}`).join(", ");
    this.dialog.innerHTML = `<form method="dialog" class="fx-form">
      <header><b>${esc(track.name)}</b> <span class="muted">${esc(this.view.instruments[track.id] || "")}</span>
        <button value="close" class="close" title="close (Escape)">✕</button></header>
      <div class="row mix">
        <label>volume <input type="range" data-dlg="volume" min="0" max="1.5" step="0.01" value="${track.volume}"></label>
        <label>pan <input type="range" data-dlg="pan" min="0" max="1" step="0.01" value="${track.pan}"></label></div>
      <h3>Effect chain</h3>
      <ol class="chain">${track.inserts.map((fx) => `<li><b>${esc(fx.type)}</b>${fx.bypass ? " (bypassed)" : ""} <span class="muted">${esc(params(fx))}</span></li>`).join("")
        || `<li class="muted">no effects yet</li>`}</ol>
      <h3>Sends</h3>
      <ul class="chain">${track.sends.map((s) => `<li>${esc(buses.get(s.bus_id) || s.bus_id)} <span class="muted">${Math.round(s.level * 100)} %</span></li>`).join("")
        || `<li class="muted">no sends</li>`}</ul>
      <h3>Add an effect</h3>
      <div class="row"><select name="type" aria-label="effect type">${this.effectTypes().map((t) => `<option>${esc(t)}</option>`).join("")}</select>
        <button class="primary" value="add" type="submit">Add to ${esc(track.name)}</button></div>
    </form>`;
    if (!this.dialog.open) this.dialog.showModal();
  }

  dialogSlide(e, done) {
    const input = e.target.closest("input[data-dlg]"); if (!input) return;
    const track = this.view.tracks.find((t) => t.id === this.dialogTrack); if (!track) return;
    const act = input.dataset.dlg, value = Number(input.value);
    this.onMix(track.id, { [act]: value });
    const inline = this.root.querySelector(`.head[data-track="${CSS.escape(track.id)}"] input[data-act="${act}"]`);
    if (inline) inline.value = String(value);
    if (done) this.onTool([{ name: act === "volume" ? "set_track_volume" : "set_track_pan", args: { track: track.id, [act]: value } }],
      `${track.name} ${act} ${value.toFixed(2)}`);
  }

  dialogClick(e) { if (e.target === this.dialog) this.dialog.close(); }

  addEffect(e) {
    if (e.submitter?.value !== "add") return;
    e.preventDefault();
    const track = this.view.tracks.find((t) => t.id === this.dialogTrack);
    const type = this.dialog.querySelector("select[name=type]").value;
    this.onTool([{ name: "add_insert_effect", args: { track: track.id, type } }], `add ${type} to ${track.name}`);
  }
}
