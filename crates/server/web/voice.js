// voice.js: the composer's voice input. Record with the microphone, have the server
// transcribe it (POST /api/transcribe), and put the text into the composer for the learner
// to check and send: nothing is sent on the learner's behalf. Offered only when the server
// has a transcription model and the browser can record.
import { api, ApiError } from './api.js';
import { el } from './ui.js';

// The server takes about two minutes of speech (1 MiB of Opus); stop before that.
const MAX_SECONDS = 110;
const BITS_PER_SECOND = 32000;

export function voiceInput(textarea) {
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') return null;
  let recorder = null, stream = null, chunks = [], ticker = null, started = 0, lastRecording = null;
  const button = el('button', { type: 'button', class: 'secondary voice', 'aria-pressed': 'false', title: 'Speak your message; you check the text before it is sent' }, 'Voice');
  const status = el('p', { class: 'voice-status small', 'aria-live': 'polite', hidden: true });
  button.addEventListener('click', () => (recorder ? stop() : start()));

  const say = (...parts) => { status.hidden = false; status.replaceChildren(...parts); };

  async function start() {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (e) {
      say(e?.name === 'NotAllowedError'
        ? 'The microphone was not allowed. Allow it in this site’s settings to speak, or type your message.'
        : e?.name === 'NotFoundError' ? 'No microphone was found. Type your message instead.'
          : `The microphone could not start (${e?.message ?? e}).`);
      return;
    }
    chunks = [];
    recorder = new MediaRecorder(stream, { audioBitsPerSecond: BITS_PER_SECOND });
    recorder.addEventListener('dataavailable', (e) => { if (e.data.size) chunks.push(e.data); });
    recorder.addEventListener('stop', finished);
    recorder.start(1000);
    started = Date.now();
    button.setAttribute('aria-pressed', 'true');
    button.classList.add('recording');
    ticker = setInterval(tick, 250);
    tick();
  }

  function tick() {
    const seconds = Math.floor((Date.now() - started) / 1000);
    button.textContent = `Stop ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
    if (seconds === 0) say('Recording… press Stop when you are done.');
    if (seconds >= MAX_SECONDS) stop();
  }

  function stop() {
    if (recorder?.state === 'recording') recorder.stop();
  }

  function finished() {
    clearInterval(ticker);
    stream?.getTracks().forEach((t) => t.stop());
    const type = (recorder.mimeType || 'audio/webm').split(';')[0];
    recorder = null; stream = null;
    button.setAttribute('aria-pressed', 'false');
    button.classList.remove('recording');
    button.textContent = 'Voice';
    lastRecording = new Blob(chunks, { type });
    transcribe();
  }

  // The recording is kept until its text is in the composer, so a failure can be retried.
  async function transcribe() {
    button.disabled = true;
    say('Transcribing…');
    try {
      const { text } = await api('POST', '/transcribe', lastRecording);
      lastRecording = null;
      const said = (text ?? '').trim();
      if (!said) { say('Nothing was heard in that recording. Try again closer to the microphone.'); return; }
      textarea.value = textarea.value.trim() ? `${textarea.value.trimEnd()} ${said}` : said;
      textarea.dispatchEvent(new Event('input')); // saved like typed text
      textarea.focus();
      say('Transcribed into the message box: check it, correct it if needed, then press Send.');
    } catch (e) {
      const why = e instanceof ApiError ? e.message : (e?.message ?? String(e));
      say(`The recording could not be transcribed: ${why}. `,
        el('button', { type: 'button', class: 'link', onclick: transcribe }, 'Try again'));
    } finally {
      button.disabled = false;
    }
  }

  return { button, status };
}
