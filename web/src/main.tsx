import { render } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { Api, type Index, type Video } from './api';
import { Ask } from './ask';
import { Classify } from './classify';
import { Embeddings } from './embeddings';
import { Indexes } from './indexes';
import { KeyBar, storedKey } from './key';
import { Library } from './library';
import { Player, type Moment } from './player';
import { Search } from './search';
import { Uploads } from './upload';
import { Videos } from './videos';
import './styles.css';

function App() {
  const [key, setKey] = useState(storedKey());
  const api = useMemo(() => new Api(key), [key]);
  const [index, setIndex] = useState<Index | undefined>();
  const [videos, setVideos] = useState<Video[]>([]);
  const [video, setVideo] = useState<Video | undefined>();
  /** A moment's video from outside the index (a knowledge store's item a citation points at), played instead of `video`. */
  const [cited, setCited] = useState<Video | undefined>();
  const playing = cited ?? video;
  const [moment, setMoment] = useState<Moment | undefined>();
  const [videosVersion, setVideosVersion] = useState(0);
  const [indexesVersion, setIndexesVersion] = useState(0);
  /** Where this browser got each video it indexed: a local file's object URL or the URL it sent. */
  const sources = useRef(new Map<string, string | undefined>());
  const seq = useRef(0);

  const play = (videoId: string, start: number, end: number) => {
    const target = videos.find((v) => v.id === videoId) ?? video;
    if (target) setVideo(target);
    setCited(undefined);
    setMoment({ start, end, seq: ++seq.current });
  };
  const playCited = (source: Video, start: number, end: number) => {
    setVideo(undefined);
    setCited(source);
    setMoment({ start, end, seq: ++seq.current });
  };

  return (
    <>
      <header>
        <h1>vus playground</h1>
        <KeyBar apiKey={key} onChange={setKey} />
      </header>
      {key === '' ? (
        <main>
          <p class="hint">
            Paste an API key to start: <code>npm start</code> prints one on its first start, and{' '}
            <code>npm run keys -- create --org NAME</code> makes more.
          </p>
        </main>
      ) : (
        <main class="layout">
          <div class="column">
            <Indexes
              api={api}
              selected={index}
              refreshKey={indexesVersion}
              onSelect={(chosen) => {
                setIndex(chosen);
                if (chosen?.id !== index?.id) {
                  setVideo(undefined);
                  setCited(undefined);
                  setMoment(undefined);
                }
              }}
            />
            {index && (
              <>
                <Uploads
                  api={api}
                  index={index}
                  onIndexed={(videoId, source) => {
                    sources.current.set(videoId, source);
                    setVideosVersion((v) => v + 1);
                    setIndexesVersion((v) => v + 1);
                  }}
                />
                <Videos
                  api={api}
                  index={index}
                  refreshKey={videosVersion}
                  selectedId={video?.id}
                  onLoaded={setVideos}
                  onSelect={(chosen) => {
                    setVideo(chosen);
                    setCited(undefined);
                    setMoment(undefined);
                  }}
                />
              </>
            )}
          </div>
          <div class="column wide">
            {!playing && index && videos.length > 0 && (
              // The player's size, so that choosing the first video or result moves nothing below it.
              <section aria-label="Player" class="player">
                <h2>Player</h2>
                <div class="player-placeholder">
                  <p class="hint">Choose a video, or a search result, to play it here and ask about it.</p>
                </div>
                <div class="timeline" aria-hidden="true" />
                <p class="hint moment-line" />
              </section>
            )}
            {playing && (
              <Player
                video={playing}
                localSource={cited ? undefined : sources.current.get(playing.id)}
                moment={moment?.seq !== undefined ? moment : undefined}
              />
            )}
            {index && <Search api={api} index={index} videos={videos} onPlay={(clip) => play(clip.videoId, clip.start, clip.end)} />}
            {index && videos.length > 0 && <Classify key={index.id} api={api} index={index} videos={videos} onPlay={play} />}
            <Library api={api} index={index} videos={videos} onPlay={playCited} />
            {video && <Ask key={video.id} api={api} video={video} onPlay={(start, end) => play(video.id, start, end)} />}
            {video && (
              <Embeddings
                key={video.id}
                api={api}
                sourceUrl={httpSource(sources.current.get(video.id))}
                onPlay={(start, end) => play(video.id, start, end)}
              />
            )}
          </div>
        </main>
      )}
    </>
  );
}

/** Only a URL the server can fetch: not a local file's object URL. */
const httpSource = (source: string | undefined) => (source && /^https?:/.test(source) ? source : undefined);

render(<App />, document.getElementById('app')!);
