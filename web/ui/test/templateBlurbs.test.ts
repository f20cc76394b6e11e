// The editor palette's line on each template, in the chosen language (the names of the
// operators' kinds and roles stay as Kubernetes spells them).
import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../src/i18n/locale';
import { t, translate } from '../src/i18n/t';
import { kTemplates, templateBlurb } from '../src/model/spec';

describe('template blurbs', () => {
  afterEach(() => setLocale('en'));
  it('says each template in English', () => {
    expect(templateBlurb('container')).toBe('One pod running an image');
    expect(templateBlurb('tfjob')).toBe('TFJob: chief + workers (+ ps)');
    expect(t('ed.paletteTip')).toMatch(/^Drag a template onto the canvas .* Ctrl\+Z undoes\.$/);
  });
  it('says each template in Chinese when zh-CN is chosen, every one of them translated', () => {
    setLocale('zh-CN');
    expect(templateBlurb('container')).toBe('运行一个镜像的单个 Pod');
    expect(templateBlurb('tfjob')).toBe('TFJob：chief + workers（+ ps）');
    expect(t('ed.paletteTip')).toMatch(/^把模板拖到画布上.*Ctrl\+Z 撤销。$/);
    for (const tpl of kTemplates) expect(templateBlurb(tpl.name)).not.toBe(templateBlurb(tpl.name, (key, params) => translate('en', key, params)));
  });
});
