import { useEffect, useRef, useState } from 'preact/hooks';
import { readTask, type Api, type Index, type Json, type Task } from './api';
import { describeError } from './lib/errors';

interface Upload {
  key: number;
  label: string;
  /** The local file, playable here as MP4 when the index makes no stream. */
  file?: File;
  url?: string;
  task?: Task;
  error?: string;
}

const DONE = new Set(['ready', 'failed']);
const POLL_MS = 1000;

/** Upload by file (picker or drop, several at once) or by URL; each task's status polled live. */
export function Uploads({
  api,
  index,
  onIndexed,
}: {
  api: Api;
  index: Index;
  onIndexed: (videoId: string, source: string | undefined) => void;
}) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [url, setUrl] = useState('');
  const [dragging, setDragging] = useState(false);
  const counter = useRef(0);
  const fileInput = useRef<HTMLInputElement>(null);

  const update = (key: number, change: Partial<Upload>) => setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const start = async (upload: Upload) => {
    setUploads((all) => [upload, ...all]);
    const form = new FormData();
    form.append('index_id', index.id);
    if (upload.file) form.append('video_file', upload.file, upload.file.name);
    else form.append('video_url', upload.url ?? '');
    try {
      const created = await api.call<{ _id: string }>('POST', '/v1.2/tasks', form);
      update(upload.key, { task: { id: created._id, status: 'pending', videoId: undefined, percentage: undefined, error: undefined } });
      await poll(upload, created._id);
    } catch (e) {
      update(upload.key, { error: describeError(e) });
    }
  };

  const poll = async (upload: Upload, taskId: string) => {
    for (;;) {
      const task = readTask(await api.call<Json>('GET', `/v1.2/tasks/${encodeURIComponent(taskId)}`));
      update(upload.key, { task });
      if (DONE.has(task.status)) {
        if (task.error) update(upload.key, { error: `${task.error.message} (${task.error.code})` });
        if (task.status === 'ready' && task.videoId) onIndexed(task.videoId, upload.file ? URL.createObjectURL(upload.file) : upload.url);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };

  const addFiles = (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) void start({ key: ++counter.current, label: file.name, file });
  };

  // A new index starts with an empty list.
  useEffect(() => setUploads([]), [index.id]);

  return (
    <section aria-labelledby="upload-title">
      <h2 id="upload-title">Upload</h2>
      <div
        class={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          addFiles(e.dataTransfer?.files ?? null);
        }}
      >
        <p>Drop videos here, or</p>
        <input
          ref={fileInput}
          id="video-files"
          type="file"
          accept="video/*"
          multiple
          class="visually-hidden"
          // The button below opens it: the input itself is no Tab stop (it would be one with no visible focus).
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => {
            addFiles(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
        <button type="button" onClick={() => fileInput.current?.click()}>
          Choose files…
        </button>
      </div>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim() === '') return;
          void start({ key: ++counter.current, label: url.trim(), url: url.trim() });
          setUrl('');
        }}
      >
        <label for="video-url" class="visually-hidden">
          Video URL
        </label>
        <input id="video-url" type="url" placeholder="https://…/video.mp4" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <button type="submit">Index URL</button>
      </form>
      <ul class="tasks" aria-live="polite">
        {uploads.map((upload) => (
          <li key={upload.key} class={`task ${upload.error ? 'failed' : (upload.task?.status ?? 'uploading')}`}>
            <span class="name">{upload.label}</span>
            {upload.error ? (
              <span class="error">{upload.error}</span>
            ) : (
              <>
                <span class="status">{upload.task?.status ?? 'uploading'}</span>
                <progress
                  max={100}
                  value={upload.task?.status === 'ready' ? 100 : upload.task?.percentage}
                  aria-label={`${upload.label} progress`}
                />
                {upload.task?.percentage !== undefined && upload.task.status !== 'ready' && (
                  <span>{Math.round(upload.task.percentage)}%</span>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
