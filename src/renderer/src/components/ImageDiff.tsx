import { useEffect, useState, type SyntheticEvent } from 'react';
import type { FileContents, ImageSide, ImageSides } from '../../../shared/model';
import { loadImages, setImageMode, setOnion, setSwipe, useFiles, type ImageMode } from '../store/files';

const MODES: { mode: ImageMode; label: string }[] = [
  { mode: 'side', label: 'Side by side' },
  { mode: 'swipe', label: 'Swipe' },
  { mode: 'onion', label: 'Onion skin' },
];

const shows = (s: ImageSide | null): s is ImageSide & { base64: string } => !!s?.mime && !!s.base64;
// Shown through <img> only (a data: URL): an SVG's scripts never run there, and nothing of it enters the DOM.
const dataUrl = (s: ImageSide & { base64: string }) => `data:${s.mime};base64,${s.base64}`;

/**
 * A binary file's pictures (loaded from the service by content key), or the plain notice when neither side is
 * a picture the page can show.
 */
export function BinaryImageDiff(props: {
  file: FileContents;
  contentKey: string | null;
  oldPath?: string;
  notice: string;
}) {
  const { file, contentKey, oldPath } = props;
  const images = useFiles((s) => (s.images && s.images.key === contentKey ? s.images : null));
  // Again for a new answer under the same key too: "Since then" files changed on disk.
  useEffect(() => {
    if (contentKey) void loadImages(contentKey, file.path, oldPath);
  }, [contentKey, file, oldPath]);
  if (!images || (!images.sides && !images.error)) return <p className="diff-notice">Loading {file.path}…</p>;
  if (images.error)
    return (
      <p className="diff-notice">
        {props.notice} The pictures could not load: {images.error.message} ({images.error.code})
      </p>
    );
  if (!images.sides || (!shows(images.sides.before) && !shows(images.sides.after)))
    return <p className="diff-notice">{props.notice}</p>;
  return <ImageDiff key={contentKey} sides={images.sides} />;
}

/**
 * Old and new picture: side by side, a swipe between them, or the new one over the old (onion skin). Keyed by
 * the file shown, so the measured sizes start afresh for each.
 */
export function ImageDiff({ sides }: { sides: ImageSides }) {
  const mode = useFiles((s) => s.imageMode);
  const both = shows(sides.before) && shows(sides.after);
  const [dims, setDims] = useState<Record<'before' | 'after', string | null>>({ before: null, after: null });
  const measured = (which: 'before' | 'after') => (e: SyntheticEvent<HTMLImageElement>) => {
    const img = e.currentTarget;
    const d = `${img.naturalWidth} × ${img.naturalHeight} px`;
    setDims((old) => (old[which] === d ? old : { ...old, [which]: d }));
  };
  const shown = both ? mode : 'side';
  return (
    <section className="image-diff" aria-label="Image diff">
      <div className="image-toolbar">
        {both && (
          <div role="radiogroup" aria-label="Image view" className="image-modes">
            {MODES.map(({ mode: m, label }) => (
              <label key={m} className={mode === m ? 'on' : ''}>
                <input type="radio" name="image-mode" value={m} checked={mode === m} onChange={() => setImageMode(m)} />
                {label}
              </label>
            ))}
          </div>
        )}
        {shown === 'swipe' && <Slider label="Swipe position" pick={(s) => s.swipe} set={setSwipe} />}
        {shown === 'onion' && <Slider label="Onion skin opacity" pick={(s) => s.onion} set={setOnion} />}
      </div>
      {shown === 'side' ? (
        <div className="image-sides">
          {(['before', 'after'] as const).map((which) => (
            <figure key={which} className="image-side">
              <div className="image-frame">
                {shows(sides[which]) ? (
                  <img src={dataUrl(sides[which])} alt={`${label(which)}: ${sides.path}`} onLoad={measured(which)} />
                ) : (
                  <span className="image-absent">{absent(sides[which])}</span>
                )}
              </div>
              <figcaption>{caption(which, sides[which], dims[which])}</figcaption>
            </figure>
          ))}
        </div>
      ) : (
        <Stacked sides={sides} mode={shown} measured={measured} dims={dims} />
      )}
    </section>
  );
}

function Stacked(props: {
  sides: ImageSides;
  mode: 'swipe' | 'onion';
  measured: (which: 'before' | 'after') => (e: SyntheticEvent<HTMLImageElement>) => void;
  dims: Record<'before' | 'after', string | null>;
}) {
  const { sides, mode, measured, dims } = props;
  const swipe = useFiles((s) => s.swipe);
  const onion = useFiles((s) => s.onion);
  const before = sides.before as ImageSide & { base64: string };
  const after = sides.after as ImageSide & { base64: string };
  return (
    <figure className="image-side stacked" data-mode={mode}>
      <div className="image-frame">
        {mode === 'swipe' ? (
          <>
            {/* The old picture on the left of the slider, the new one on its right. */}
            <img
              src={dataUrl(after)}
              alt={`After: ${sides.path}`}
              onLoad={measured('after')}
              style={{ clipPath: `inset(0 0 0 ${swipe}%)` }}
            />
            <img
              src={dataUrl(before)}
              alt={`Before: ${sides.path}`}
              onLoad={measured('before')}
              style={{ clipPath: `inset(0 ${100 - swipe}% 0 0)` }}
            />
            <span className="swipe-line" style={{ left: `${swipe}%` }} aria-hidden="true" />
          </>
        ) : (
          <>
            <img src={dataUrl(before)} alt={`Before: ${sides.path}`} onLoad={measured('before')} />
            <img
              src={dataUrl(after)}
              alt={`After: ${sides.path}`}
              onLoad={measured('after')}
              style={{ opacity: onion / 100 }}
            />
          </>
        )}
      </div>
      <figcaption>
        {caption('before', before, dims.before)} · {caption('after', after, dims.after)}
      </figcaption>
    </figure>
  );
}

function Slider(props: {
  label: string;
  pick: (s: { swipe: number; onion: number }) => number;
  set: (n: number) => void;
}) {
  const value = useFiles(props.pick);
  return (
    <label className="image-slider">
      <span>{props.label}</span>
      <input
        type="range"
        min={0}
        max={100}
        value={value}
        aria-label={props.label}
        aria-valuetext={`${value}%`}
        onChange={(e) => props.set(Number(e.target.value))}
      />
    </label>
  );
}

const label = (which: 'before' | 'after') => (which === 'before' ? 'Before' : 'After');

function absent(side: ImageSide | null): string {
  if (side === null) return 'No file on this side';
  if (side.tooLarge) return 'Too large to show';
  return 'Not an image';
}

function caption(which: 'before' | 'after', side: ImageSide | null, dims: string | null): string {
  if (side === null) return `${label(which)}: none`;
  const size = `${side.size.toLocaleString('en-US')} bytes`;
  return `${label(which)}: ${dims ? `${dims}, ` : ''}${size}`;
}
