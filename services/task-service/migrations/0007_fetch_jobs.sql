-- Up Migration
-- A video_url task is downloaded by its 'fetch-task' job (slots of their own: a download is I/O
-- and must not hold an indexing slot), which queues its 'index-task' job once the media is
-- stored. The waiting jobs of tasks still to be downloaded become fetch jobs; a running one stays
-- with its worker (the index stage still fetches a task that is uploading).
UPDATE jobs SET kind = 'fetch-task'
WHERE kind = 'index-task' AND state = 'queued'
  AND subject_id IN (SELECT id FROM tasks WHERE status = 'uploading');
