import { useEffect, useRef, useState } from 'preact/hooks';
import type { Video } from './api';
import { formatSeconds, spanOnTimeline } from './lib/format';

export interface Moment {
  start: number;
  end: number;
  /** A new request to play, even of the same span. */
  seq: number;
}

/**
 * The player: the video's HLS stream (natively where the browser plays HLS, else through
 * hls.js, loaded only when needed), else the MP4 this browser uploaded or the URL it indexed.
 * A moment seeks there, plays, and is drawn on the timeline below.
 */
export function Player({ video, localSource, moment }: { video: Video; localSource: string | undefined; moment: Moment | undefined }) {
  const element = useRef<HTMLVideoElement>(null);
  const [problem, setProblem] = useState('');
  const source = video.streamUrl ?? localSource;

  useEffect(() => {
    const media = element.current;
    if (!media || !source) return;
    setProblem('');
    let destroy = () => {};
    if (video.streamUrl && !media.canPlayType('application/vnd.apple.mpegurl')) {
      let cancelled = false;
      void import('hls.js').then(({ default: Hls }) => {
        if (cancelled) return;
        if (!Hls.isSupported()) {
          setProblem('This browser can play neither HLS nor Media Source Extensions.');
          return;
        }
        const hls = new Hls();
        hls.on(Hls.Events.ERROR, (_event, data) => {
          if (data.fatal) setProblem(`The stream could not be played (${data.details}).`);
        });
        hls.loadSource(source);
        hls.attachMedia(media);
        destroy = () => hls.destroy();
      });
      return () => {
        cancelled = true;
        destroy();
      };
    }
    media.src = source;
    return () => {
      media.removeAttribute('src');
      media.load();
    };
  }, [source]);

  /** Where the moment is: being played, played to its end (and paused there), or left by the user. */
  const [phase, setPhase] = useState<'playing' | 'ended' | 'left'>('playing');

  useEffect(() => {
    const media = element.current;
    if (!media || !moment) return;
    setPhase('playing');
    let seeked = false;
    const seek = () => {
      media.currentTime = moment.start;
      seeked = true;
      media.play().catch(() => {
        // Autoplay may be refused; the user presses play, from the moment.
      });
    };
    // The moment stops at its end, once: pressing play again goes on from there.
    let stopped = false;
    const follow = () => {
      if (!seeked || stopped) return;
      const at = media.currentTime;
      if (at >= moment.end) {
        stopped = true;
        media.pause();
        setPhase('ended');
      }
    };
    // The user seeking out of the moment leaves it: no stop, no label.
    const seeking = () => {
      if (!seeked || stopped) return;
      if (media.currentTime < moment.start - 0.5 || media.currentTime >= moment.end) {
        stopped = true;
        setPhase('left');
      }
    };
    media.addEventListener('timeupdate', follow);
    media.addEventListener('seeking', seeking);
    if (media.readyState >= HTMLMediaElement.HAVE_METADATA) seek();
    else media.addEventListener('loadedmetadata', seek, { once: true });
    return () => {
      media.removeEventListener('timeupdate', follow);
      media.removeEventListener('seeking', seeking);
      media.removeEventListener('loadedmetadata', seek);
    };
  }, [moment?.seq, source]);

  const span = moment ? spanOnTimeline(moment.start, moment.end, video.duration) : undefined;
  return (
    <section aria-labelledby="player-title" class="player">
      <h2 id="player-title">{video.filename}</h2>
      {source ? (
        <video id="player" ref={element} controls muted playsInline preload="metadata" />
      ) : (
        <p class="hint">
          This video has no stream (its index was made without one) and was not uploaded from this browser, so there is nothing to play.
        </p>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="timeline" aria-hidden={!span}>
        {span && <span class="span" style={{ left: `${span.left}%`, width: `${span.width}%` }} />}
      </div>
      {/* Always there (empty without a moment), so that a moment's line moves nothing below it. */}
      <p class="hint moment-line" id={moment && phase !== 'left' ? 'moment' : undefined} aria-live="polite">
        {moment &&
          phase !== 'left' &&
          `${phase === 'ended' ? 'Played' : 'Playing'} ${formatSeconds(moment.start)}–${formatSeconds(moment.end)}`}
      </p>
    </section>
  );
}
