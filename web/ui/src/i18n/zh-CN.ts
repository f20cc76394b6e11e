// 简体中文界面文字。键与 en.ts 完全一致：缺少任何一个键都无法通过编译。
// Product names, task names, YAML fields, API paths and units stay as written.

import type { en } from './en';

export const zhCN: Record<keyof typeof en, string> = {
  // 导航
  'nav.pipelines': '流水线',
  'nav.editor': '编辑器',
  'nav.runs': '运行记录',
  'nav.cluster': '集群',
  'nav.whatif': '假设分析',
  'nav.access': '访问控制',
  'nav.tagline': '机器学习平台编排器',
  'nav.live': '实时',
  'nav.connecting': '连接中…',
  'nav.offline': '离线',
  'nav.liveTitle': '实时更新（Server-Sent Events）：{state}',
  'nav.signOut': '退出登录',
  'nav.language': '语言',
  'nav.clockTitle': '服务器的模拟时钟以 {speed}× 于真实时间的速度运行；页面上显示的所有时间都以服务器为准。',

  // 登录
  'login.intro1': '请使用 API 令牌登录。',
  'login.intro2': '首次启动时会把管理员令牌写入数据库旁的一个文件（权限 0600），并在启动信息中打印该文件的路径。只读令牌可通过以下命令创建：',
  'login.rejected': '服务器已不再接受保存的令牌（令牌已被吊销，或服务器使用了新的数据库）。请重新登录。',
  'login.notAccepted': '令牌未被接受。请确认已完整复制令牌文件中的那一行。',
  'login.token': 'API 令牌',
  'login.placeholder': '粘贴令牌',
  'login.signIn': '登录',
  'login.storage': '令牌仅保存在本浏览器（local storage）中，每次请求时以 {header} 发送。',

  // 横幅
  'stale.lost': '于 {at} UTC 与服务器失去连接，正在重试；当前显示的是那一刻的数据。',
  'stale.stopped': '{cause}。在服务器恢复响应之前，倒计时和耗时均已暂停。',

  // 通用
  'common.close': '关闭',
  'common.dismiss': '关闭提示',
  'common.cancel': '取消',

  // 相对时间
  'rel.now': '刚刚',
  'rel.in': '{n} {unit}后',
  'rel.ago': '{n} {unit}前',
  'unit.s': '秒',
  'unit.min': '分钟',
  'unit.h': '小时',
  'unit.d': '天',

  'count.ticks_one': '{count} 次触发',
  'count.ticks_other': '{count} 次触发',
  'count.runs_one': '{count} 次运行',
  'count.runs_other': '{count} 次运行',
};
