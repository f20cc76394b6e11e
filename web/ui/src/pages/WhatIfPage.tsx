export default function WhatIfPage(_: Record<string, unknown>) { return <div className="page">WhatIfPage</div>; }
